import { catalogLocaleOf, type CatalogLocale } from '../replies/i18n/locales.ts';
import { translatorFor, type Translate } from '../replies/i18n/translate.ts';
import type { APIEmbed } from 'discord.js';
import type { ButtonSpec, OutgoingMessage } from '../replies/interactions.ts';
import { terminalText } from '../replies/terminal-text.ts';

export interface RenderOptions {
  /** ANSI bold, italics and dim text, for a terminal. */
  color: boolean;
  /** For relative times such as "in 3 hours". */
  now: Date;
  /** The number a message with buttons goes by at the console, shown before its buttons (`message #3: [1: Older]`). */
  messageNumber?: number;
  /** The console's language (its own words, and how timestamps read); English when absent. */
  locale?: string | undefined;
}

const STYLE = { bold: ['\u001b[1m', '\u001b[22m'], italic: ['\u001b[3m', '\u001b[23m'], code: ['\u001b[36m', '\u001b[39m'], dim: ['\u001b[2m', '\u001b[22m'] } as const;

function styled(text: string, style: keyof typeof STYLE, color: boolean): string {
  return color ? `${STYLE[style][0]}${text}${STYLE[style][1]}` : text;
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];
interface TimestampFormats {
  relative: Intl.RelativeTimeFormat;
  dateTime: Intl.DateTimeFormat;
  dateOnly: Intl.DateTimeFormat;
  timeOnly: Intl.DateTimeFormat;
}

const timestampFormats = new Map<CatalogLocale, TimestampFormats>();

/** Discord shows timestamps in the reader's client language; the console in its own (English: as always). */
function formatsFor(locale: string | undefined): TimestampFormats {
  const catalog = catalogLocaleOf(locale);
  let found = timestampFormats.get(catalog);
  if (!found) {
    const tag = catalog === 'en' ? 'en-GB' : catalog;
    found = {
      relative: new Intl.RelativeTimeFormat(catalog === 'en' ? 'en' : catalog, { numeric: 'auto' }),
      dateTime: new Intl.DateTimeFormat(tag, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }),
      dateOnly: new Intl.DateTimeFormat(tag, { dateStyle: 'long', timeZone: 'UTC' }),
      timeOnly: new Intl.DateTimeFormat(tag, { timeStyle: 'short', timeZone: 'UTC' }),
    };
    timestampFormats.set(catalog, found);
  }
  return found;
}

/** What Discord shows for a `<t:…:R>` tag: "in 3 hours", "2 days ago". */
export function relativeTime(instant: Date, now: Date, locale?: string): string {
  const seconds = Math.round((instant.getTime() - now.getTime()) / 1000);
  const [unit, size] = UNITS.find(([, length]) => Math.abs(seconds) >= length) ?? ['second', 1];
  return formatsFor(locale).relative.format(Math.round(seconds / size), unit);
}

/** Discord timestamp tags as text, in UTC since a terminal has no reader's time zone to use. */
export function renderTimestamps(text: string, now: Date, locale?: string): string {
  const formats = formatsFor(locale);
  return text.replace(/<t:(-?\d+)(?::([tTdDfFR]))?>/g, (_tag, seconds: string, style: string | undefined) => {
    const instant = new Date(Number(seconds) * 1000);
    switch (style) {
      case 'R':
        return relativeTime(instant, now, locale);
      case 'd':
      case 'D':
        return formats.dateOnly.format(instant);
      case 't':
      case 'T':
        return `${formats.timeOnly.format(instant)} UTC`;
      default:
        return `${formats.dateTime.format(instant)} UTC`;
    }
  });
}

/**
 * The little markdown the bot writes, as terminal text: escapes undone, **bold**, *italics* and `code` styled
 * (or simply unmarked without colour), Discord timestamps written out, control characters made visible.
 */
export function renderMarkdown(text: string, options: RenderOptions): string {
  const source = renderTimestamps(terminalText(text), options.now, options.locale);
  let out = '';
  let bold = false;
  let italic = false;
  let code = false;
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index] as string;
    const next = source[index + 1];
    if (char === '\\' && next !== undefined && /[^A-Za-z0-9\s]/.test(next)) {
      out += next;
      index += 1;
    } else if (char === '`') {
      code = !code;
      if (options.color) out += code ? STYLE.code[0] : STYLE.code[1];
    } else if (code) {
      out += char;
    } else if (char === '*' && next === '*') {
      bold = !bold;
      if (options.color) out += bold ? STYLE.bold[0] : STYLE.bold[1];
      index += 1;
    } else if (char === '*') {
      italic = !italic;
      if (options.color) out += italic ? STYLE.italic[0] : STYLE.italic[1];
    } else {
      out += char;
    }
  }
  return out;
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? prefix.trimEnd() : `${prefix}${line}`))
    .join('\n');
}

function renderEmbed(embed: APIEmbed, options: RenderOptions): string {
  const lines: string[] = [];
  if (embed.author?.name) lines.push(renderMarkdown(embed.author.name, options));
  if (embed.title) {
    const title = styled(renderMarkdown(embed.title, options), 'bold', options.color);
    lines.push(embed.url ? `${title}  ${styled(`<${terminalText(embed.url)}>`, 'dim', options.color)}` : title);
  }
  if (embed.description) lines.push('', renderMarkdown(embed.description, options));
  for (const field of embed.fields ?? []) {
    lines.push('', styled(renderMarkdown(field.name, options), 'bold', options.color), indent(renderMarkdown(field.value, options), '  '));
  }
  if (embed.footer?.text) lines.push('', styled(renderMarkdown(embed.footer.text, options), 'dim', options.color));
  return indent(lines.join('\n').replace(/^\n+/, ''), '│ ');
}

/** `[1: Older]  [2: Newer (disabled)]`: buttons numbered so they can be pressed by number too. */
export function renderButtons(buttons: ButtonSpec[], t: Translate = translatorFor(undefined)): string {
  const disabled = ` ${t('console.button.disabled')}`;
  return buttons.map((button, index) => `[${index + 1}: ${terminalText(button.label)}${button.disabled ? disabled : ''}]`).join('  ');
}

/** A message as the terminal shows it: content, each embed framed, then its buttons. */
export function renderMessage(message: OutgoingMessage, options: RenderOptions): string {
  const blocks: string[] = [];
  const t = translatorFor(options.locale);
  if (message.ephemeral) blocks.push(styled(t('console.onlyYou'), 'dim', options.color));
  if (message.content) blocks.push(renderMarkdown(message.content, options));
  for (const embed of message.embeds ?? []) blocks.push(renderEmbed(embed, options));
  for (const file of message.files ?? []) {
    const attached = t('console.attached', { name: file.name, bytes: String(Buffer.byteLength(file.text, 'utf8')) });
    blocks.push(`${styled(attached, 'dim', options.color)}\n${file.text}`);
  }
  if (message.buttons && message.buttons.length > 0) {
    const label = options.messageNumber === undefined ? '' : `${styled(t('console.messageNumber', { number: options.messageNumber }), 'dim', options.color)} `;
    blocks.push(`${label}${renderButtons(message.buttons, t)}`);
  }
  if (blocks.length === 0) blocks.push(styled(t('console.emptyMessage'), 'dim', options.color));
  return blocks.join('\n');
}
