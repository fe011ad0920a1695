import { commands } from '../../commands/index.ts';
import { ConsoleSession } from '../../src/console/session.ts';
import { PrivacyService } from '../../src/schedule/privacy.ts';
import { createSubscriptionService } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import type { WotdLookup } from '../../src/wotd/lookup.ts';
import type { Cleanups } from '../schedule/bot-on-server.ts';
import { FixedLookup, tempStore } from '../schedule/helpers.ts';

/**
 * A console session with every command, answering from a FixedLookup, its subscriptions in a temp SQLite store, the
 * clock `now` (stopped at 2026-06-15 07:00 UTC unless given); with `privacy`, /wotd-data works on that store. `say` runs one line and
 * returns what it printed; `output` holds what was printed since it was last emptied.
 */
export async function startStoreSession(cleanups: Cleanups, options: { locale?: string; privacy?: boolean; now?: () => Date } = {}) {
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  const store = await SubscriptionStore.open(temp.url);
  cleanups.push(() => store.close());
  const now = options.now ?? (() => new Date('2026-06-15T07:00:00Z'));
  const output: string[] = [];
  const lookup = new FixedLookup();
  const session = new ConsoleSession({
    commands,
    services: {
      lookup: lookup as unknown as WotdLookup,
      siteUrl: 'https://wotd.site',
      subscriptions: createSubscriptionService({ store, limit: 5, now }),
      ...(options.privacy ? { privacy: new PrivacyService(store, now) } : {}),
    },
    write: (text) => output.push(text),
    color: false,
    showThinking: false,
    now,
    locale: options.locale,
  });
  const say = async (line: string) => {
    output.length = 0;
    await session.handleLine(line);
    return output.join('');
  };
  return { store, session, say, output, lookup, now };
}
