import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.ts';
import { ConsoleSession } from '../../src/console/session.ts';
import { createSubscriptionService } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { startCommandWorld, type CommandWorld } from '../commands/world.ts';
import { tempStore } from '../schedule/helpers.ts';
import {
  DATES,
  expectSpecific,
  nastyText,
  NUMBERS,
  PROPERTY_TIMEOUT_MS,
  QUOTES,
  RUNS,
  settings,
  TERMINAL_CONTROL,
  trackUnhandled,
  withinBound,
  WORLD_RATE_LIMIT,
} from './generated.ts';

/**
 * Generated console lines (commands, options as name:value, quotes balanced or not, unicode, control characters,
 * huge lines, unknown commands, press, help) through the real console session, with our service behind the real
 * adapter: each line gets its reply or a specific error, printed plainly, and Tab completion never fails.
 */

const SEED = 5_517;

const COMMAND_NAMES = commands.map((command) => command.data.name);

/** Values near what each option takes, or anything at all. */
const near = (values: string[]) =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: nastyText({ extra: QUOTES, maxPieces: 5 }) });
const VALUES: Record<string, fc.Arbitrary<string>> = {
  date: near(DATES),
  limit: near([...NUMBERS, '3', '8', '1']),
  word: near(['serendipity', 'echo', 'ECHO', ' echo ', 'mark_down', 'zzz', 'a'.repeat(101)]),
  channel: near(['#words', '#', 'words', '#a b', '#<@1>', '#**x**']),
  time: near(['09:00', '9:5', '24:00', '23:59', '0:00', '07:30', '7', '12:60']),
  timezone: near(['Europe/London', 'europe/london', 'UTC', 'Mars/Olympus', '+05:00', 'Etc/GMT+5', 'America/New_York', 'local']),
  role: near(['@readers', '@', '@everyone', 'readers', '@<@&1>']),
};
const anyValue = nastyText({ extra: QUOTES, maxPieces: 5 });

/** name:value, quoted when the value holds a space (or now and then anyway, closed or not). */
function written(name: string, value: string, quote: string): string {
  if (quote === 'open') return `${name}:"${value}`;
  return /\s/.test(value) ? `${name}:"${value}"` : `${name}:${quote}${value}${quote}`;
}
const quoting = fc.constantFrom('', '', '', '"', "'", 'open');

/** A command with some of its own options (and now and then one it does not have), as typed. */
const commandLine = fc
  .tuple(fc.constantFrom(...commands), fc.constantFrom('/', '/', '/', '', ' /', '//'), fc.boolean())
  .chain(([command, slash, upper]) => {
    const names = (command.data.toJSON().options ?? []).map((option) => option.name);
    const own = names.length > 0 ? fc.uniqueArray(fc.constantFrom(...names), { maxLength: names.length }) : fc.constant([]);
    const stray = fc.array(fc.tuple(fc.constantFrom('x', 'Date', 'LIMIT', '', ' ', 'date'), anyValue, quoting), { maxLength: 1 });
    return fc.tuple(own, stray).chain(([chosen, extra]) =>
      fc.tuple(...chosen.map((name) => fc.tuple(fc.constant(name), VALUES[name] ?? anyValue, quoting))).map((pairs) => {
        const tokens = [...pairs, ...extra].map(([name, value, quote]) => written(name, value, quote));
        const typedName = upper ? command.data.name.toUpperCase() : command.data.name;
        return [`${slash}${typedName}`, ...tokens].join(' ');
      }),
    );
  });

const strayLine = fc
  .tuple(fc.constantFrom(...COMMAND_NAMES, 'wod', 'wotd-', '', 'help', 'wotd find'), fc.array(nastyText({ maxPieces: 3 }), { maxLength: 4 }))
  .map(([name, rest]) => [`/${name}`, ...rest].join(' '));

const pressLine = fc
  .tuple(fc.constantFrom('press', 'PRESS', 'press '), nastyText({ extra: ['Older', 'Newer', '1', '2', '0', '99'], maxPieces: 3 }))
  .map(([press, target]) => `${press} ${target}`);

const line = fc.oneof(
  { weight: 6, arbitrary: commandLine },
  { weight: 2, arbitrary: strayLine },
  { weight: 1, arbitrary: pressLine },
  { weight: 1, arbitrary: fc.constantFrom('help', '?', 'HELP', '', '   ', '\t', 'quit', 'exit', 'exit now') },
  { weight: 2, arbitrary: nastyText({ extra: [...QUOTES, '/', ':', '/wotd', 'date:'], maxPieces: 10, huge: 20_000 }) },
);

let world: CommandWorld;
let store: SubscriptionStore;
let cleanup: () => void;
const unhandled = trackUnhandled();
const output: string[] = [];
let session: ConsoleSession;

beforeAll(async () => {
  world = await startCommandWorld({ rateLimit: WORLD_RATE_LIMIT });
  const temp = tempStore();
  cleanup = temp.cleanup;
  store = await SubscriptionStore.open(temp.url);
  session = new ConsoleSession({
    commands,
    services: { ...world.services, subscriptions: createSubscriptionService({ store, limit: 5, now: world.now }) },
    write: (text) => output.push(text),
    color: true,
    showThinking: true,
    now: world.now,
  });
});

afterAll(async () => {
  unhandled.stop();
  await store?.close();
  await world?.close();
  cleanup?.();
  expect(unhandled.problems).toEqual([]);
});

/** What the console printed, without its own styling. */
function printed(): string {
  return output.join('').replace(/\u001b\[(1|22|3|23|36|39|2)m/g, '');
}

describe('generated console lines', () => {
  it('each gets its reply or a specific error, printed plainly', async () => {
    await fc.assert(
      fc.asyncProperty(line, async (typed) => {
        output.length = 0;
        const keepGoing = await withinBound(`the line ${JSON.stringify(typed.slice(0, 200))}`, session.handleLine(typed));
        const where = `line ${JSON.stringify(typed.slice(0, 200))}`;
        const trimmed = typed.trim().toLowerCase();
        if (trimmed === '') {
          expect(output, where).toEqual([]);
          return;
        }
        // The first word (quotes and all) decides: exit and quit leave, with nothing printed.
        const first = trimmed.split(/\s+/)[0]?.replace(/["']/g, '') ?? '';
        if (first === 'exit' || first === 'quit') {
          expect(keepGoing, where).toBe(false);
          return;
        }
        expect(keepGoing, where).toBe(true);
        const text = printed();
        expectSpecific(text, where, typed);
        expect(text, `${where}: a command finished without answering`).not.toContain('(no reply)');
        expect(TERMINAL_CONTROL.test(text), `${where} printed a control character: ${JSON.stringify(text.slice(0, 300))}`).toBe(false);
      }),
      settings(SEED, 2 * RUNS),
    );
  }, PROPERTY_TIMEOUT_MS);

  it('Tab completion of any line never fails', async () => {
    await fc.assert(
      fc.asyncProperty(line, async (typed) => {
        const [choices, completed] = await withinBound(`completing ${JSON.stringify(typed.slice(0, 200))}`, session.complete(typed));
        expect(Array.isArray(choices)).toBe(true);
        expect(typeof completed).toBe('string');
        // readline inserts what a completion adds to the completed text: one that does not start with it would
        // insert stray characters.
        for (const choice of choices) expect(choice.startsWith(completed), `${JSON.stringify(choice)} completing ${JSON.stringify(completed)}`).toBe(true);
      }),
      settings(SEED, RUNS),
    );
  }, PROPERTY_TIMEOUT_MS);
});
