import { DATE_STYLES, parsePostParts, POST_PARTS, type DateStyle, type PostPart } from '../schedule/post-look.ts';
import type { CommandOptions } from './interactions.ts';
import { CATALOG_LOCALES } from './i18n/locales.ts';
import { CATALOGS, type MessageKey, type Translate } from './i18n/translate.ts';
import { quoteInput } from './messages.ts';

/** /wotd-subscribe's `parts` and `date-style`: reading them, and saying them back in the reader's words. */

const PART_KEYS: Readonly<Record<PostPart | 'word', MessageKey>> = {
  word: 'subscribe.part.word',
  pos: 'subscribe.part.pos',
  ipa: 'subscribe.part.ipa',
  definition: 'subscribe.part.definition',
  date: 'subscribe.part.date',
  link: 'subscribe.part.link',
};

const DATE_STYLE_KEYS: Readonly<Record<DateStyle, MessageKey>> = {
  long: 'dateStyle.long',
  short: 'dateStyle.short',
  iso: 'dateStyle.iso',
};

/** Case and accents aside. */
function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLocaleLowerCase();
}

/** Every catalog's word for each part (`ipa`, `api`, `音标`), and for all, folded: a part may be typed in any of them. */
const PART_WORDS: ReadonlyMap<string, PostPart | 'word' | 'all'> = (() => {
  const words = new Map<string, PostPart | 'word' | 'all'>();
  for (const catalog of CATALOG_LOCALES) {
    for (const [part, key] of Object.entries(PART_KEYS) as Array<[PostPart | 'word', MessageKey]>) {
      const word = CATALOGS[catalog][key];
      if (word) words.set(fold(word), part);
    }
    const all = CATALOGS[catalog]['subscribe.reset.all'];
    if (all) words.set(fold(all), 'all');
  }
  return words;
})();

/** The parts as the reader types them: `word, ipa, definition`. */
export function partsText(parts: readonly PostPart[], t: Translate): string {
  if (parts.length === POST_PARTS.length) return t('subscribe.reset.all');
  return [t(PART_KEYS.word), ...parts.map((part) => t(PART_KEYS[part]))].join(t('common.listSeparator'));
}

/** A date style as its choice reads (`long (27 November 2026)`); today's look is the default. */
export function dateStyleText(style: DateStyle | null, t: Translate): string {
  return style === null ? t('subscribe.value.default') : t(DATE_STYLE_KEYS[style]);
}

/** The date style's choices, for the command's definition. */
export const DATE_STYLE_CHOICES: ReadonlyArray<{ key: MessageKey; value: DateStyle }> = DATE_STYLES.map((value) => ({ key: DATE_STYLE_KEYS[value], value }));

/** The most characters `parts` takes: every part's longest name, separated. */
export const PARTS_OPTION_MAX_LENGTH = 100;

/** `parts` and `date-style` as given (left out: undefined), or the message that says what is wrong. */
export function readLookOptions(options: CommandOptions, t: Translate): { ok: true; parts?: PostPart[]; dateStyle?: DateStyle } | { ok: false; message: string } {
  const read: { ok: true; parts?: PostPart[]; dateStyle?: DateStyle } = { ok: true };
  const partsTyped = options.getString('parts');
  if (partsTyped !== null) {
    const parsed = parsePostParts(partsTyped, (typed) => PART_WORDS.get(fold(typed)));
    if (!parsed.ok) {
      const names = ['word', ...POST_PARTS].map((part) => t(PART_KEYS[part as PostPart | 'word'])).join(t('common.listSeparator'));
      return { ok: false, message: t('subscribe.error.parts', { typed: quoteInput(parsed.unknown ?? partsTyped), names, all: t('subscribe.reset.all') }) };
    }
    read.parts = parsed.parts;
  }
  const style = DATE_STYLES.find((candidate) => candidate === options.getString('date-style'));
  if (style) read.dateStyle = style;
  return read;
}
