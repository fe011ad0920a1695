import { IntlMessageFormat } from 'intl-messageformat';
import type { MessageFormatElement } from '@formatjs/icu-messageformat-parser';

/**
 * The pseudo-locale: every English text with its letters accented, about 40% longer, between ⟦ and ⟧. A reply that
 * still shows plain English wrote a text outside the catalogs; one that breaks a Discord limit here would break
 * in a long language too. Only the catalog's own words change: values (the service's word, a date, a mention)
 * are left as they are. For tests and for looking at the bot; never a member's locale.
 */
export const PSEUDO_LOCALE = 'en-XA';
export const PSEUDO_OPEN = '⟦';
export const PSEUDO_CLOSE = '⟧';

const ACCENTED: Readonly<Record<string, string>> = {
  a: 'á', e: 'é', i: 'í', o: 'ó', u: 'ú', y: 'ý', c: 'ç', n: 'ñ', s: 'š', z: 'ž',
  A: 'Á', E: 'É', I: 'Í', O: 'Ó', U: 'Ú', Y: 'Ý', C: 'Ç', N: 'Ñ', S: 'Š', Z: 'Ž',
};

/** Letters accented, and each word padded by 40% of its length, so the whole grows by about that much. */
export function pseudoText(text: string): string {
  return text.replace(/[A-Za-z]+/g, (word) => {
    const accented = [...word].map((char) => ACCENTED[char] ?? char).join('');
    return `${accented}${'~'.repeat(Math.ceil(word.length * 0.4))}`;
  });
}

function transform(elements: MessageFormatElement[]): MessageFormatElement[] {
  return elements.map((element) => {
    // 0: literal, 5: select, 6: plural (TYPE in @formatjs/icu-messageformat-parser; a const enum there).
    if (element.type === 0) return { ...element, value: pseudoText(element.value) };
    if (element.type === 5 || element.type === 6) {
      const options = Object.fromEntries(
        Object.entries(element.options).map(([key, option]) => [key, { ...option, value: transform(option.value) }]),
      );
      return { ...element, options } as MessageFormatElement;
    }
    return element;
  });
}

const compiled = new Map<string, IntlMessageFormat>();

/** An English message in the pseudo-locale, compiled once per message. */
export function pseudoMessage(source: string, values: Record<string, string | number | Date> | undefined): string {
  let format = compiled.get(source);
  if (!format) {
    // As i18next-icu reads them: `<…>` is text, not a tag.
    const ast = new IntlMessageFormat(source, 'en', undefined, { ignoreTag: true }).getAst();
    format = new IntlMessageFormat(transform(ast), 'en', undefined, { ignoreTag: true });
    compiled.set(source, format);
  }
  return `${PSEUDO_OPEN}${String(format.format(values))}${PSEUDO_CLOSE}`;
}
