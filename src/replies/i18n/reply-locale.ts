import type { BotServices, Invoker } from '../interactions.ts';
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

/** How long a public reply waits for its channel's subscription language before it goes with the server's. */
export const PLACE_LANGUAGE_WAIT_MS = 250;

/**
 * The language of a public reply where the member invoked the command: the channel subscription's, when the channel
 * has one with a language, else as publicLocale. A store that cannot be read, or not at once, leaves the reply in the
 * server's language (a failure is logged) rather than failing or holding up a lookup over its wording.
 *
 * Known at once nearly always (outside servers, or the channel's language remembered), and then returned as it is:
 * only a read of the store makes it a promise. `await` takes either; the commands await only a promise (`typeof`
 * tells them apart), since awaiting a language would cost a promise and a turn of the microtask queue per command.
 */
export function placeLocale(invoker: Invoker, services: Pick<BotServices, 'subscriptions' | 'logger'>): string | undefined | Promise<string | undefined> {
  const subscriptions = services.subscriptions;
  if (!invoker.guildId || !subscriptions?.languageOf) return publicLocale(invoker);
  const known = subscriptions.cachedLanguageOf?.(invoker.channelId);
  if (known) return known.language ?? publicLocale(invoker);
  return readPlaceLocale(invoker, services, subscriptions.languageOf(invoker.channelId));
}

async function readPlaceLocale(invoker: Invoker, services: Pick<BotServices, 'logger'>, language: Promise<string | undefined>): Promise<string | undefined> {
  const read = language.catch((error: unknown) => {
    services.logger?.warn({ err: error }, "could not read the channel's subscription language; answering in the server's");
    return undefined;
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), PLACE_LANGUAGE_WAIT_MS);
  });
  try {
    return (await Promise.race([read, late])) ?? publicLocale(invoker);
  } finally {
    clearTimeout(timer);
  }
}
