import type { Invoker } from '../interactions.ts';
import { translatorFor, type Translate } from './translate.ts';

/**
 * Which language a reply is written in, in the spirit of Sapphire's i18next plugin (`t` from the interaction): a
 * private reply in the member's own client language; a public one in the language of the place, since everyone
 * there reads it: the channel's subscription language when the caller knows it, else the server's preferred
 * locale, else English. Outside servers (the bot's DM, a member's user install in a DM) the member's.
 */

export function privateLocale(invoker: Pick<Invoker, 'locale'>): string | undefined {
  return invoker.locale;
}

export function publicLocale(invoker: Pick<Invoker, 'locale' | 'guildId' | 'guildLocale'>, language?: string | null): string | undefined {
  if (language) return language;
  if (invoker.guildId) return invoker.guildLocale ?? undefined;
  return invoker.locale;
}

/** The texts of a private reply to this member. */
export function privateT(invoker: Pick<Invoker, 'locale'>): Translate {
  return translatorFor(privateLocale(invoker));
}

/** The texts of a public reply where this member invoked the command. */
export function publicT(invoker: Pick<Invoker, 'locale' | 'guildId' | 'guildLocale'>, language?: string | null): Translate {
  return translatorFor(publicLocale(invoker, language));
}
