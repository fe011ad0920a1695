import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { commands } from '../../commands/index.ts';
import { consoleBanner } from '../../src/console/banner.ts';
import { consoleNames } from '../../src/console/console-names.ts';
import { commandOptions, parseConsoleLine, subcommandsOf } from '../../src/console/parse.ts';
import { ConsoleSession } from '../../src/console/session.ts';
import { CATALOG_LOCALES } from '../../src/replies/i18n/locales.ts';
import { CATALOGS, translatorFor } from '../../src/replies/i18n/translate.ts';
import { startCommandWorld, type CommandWorld } from '../commands/world.ts';

/**
 * The catalogs' texts mention commands by the names of their language (`/wotd-verlauf`, `datum:`): a console in that
 * language accepts, shows and completes those names, besides the English ones, which keep working.
 */

let world: CommandWorld;
beforeAll(async () => {
  world = await startCommandWorld();
});
afterAll(async () => {
  await world?.close();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** A console session reading its language from the environment, as `npm start` does, and what it printed. */
function consoleIn(language: string): { session: ConsoleSession; output: string[] } {
  vi.stubEnv('CONSOLE_LANGUAGE', language);
  const output: string[] = [];
  const session = new ConsoleSession({ commands, services: world.services, write: (text) => output.push(text), color: false, showThinking: false, now: world.now });
  return { session, output };
}

/** What one line printed, message numbers left out (each shown message gets the next one). */
async function printedFor(session: ConsoleSession, output: string[], line: string): Promise<string> {
  output.length = 0;
  await session.handleLine(line);
  return output.join('').replace(/#\d+\b/g, '#N');
}

describe('a German console (CONSOLE_LANGUAGE=de)', () => {
  it('runs /wotd-verlauf anzahl:2 and /wotd-history limit:2 alike, and German and English names mixed', async () => {
    const { session, output } = consoleIn('de');
    const german = await printedFor(session, output, '/wotd-verlauf anzahl:2');
    expect(german).toContain('Die letzten Wörter des Tages');
    expect(await printedFor(session, output, '/wotd-history limit:2')).toBe(german);
    expect(await printedFor(session, output, '/WOTD-Verlauf limit:2')).toBe(german);
    const dated = await printedFor(session, output, '/wotd-verlauf datum:2025-01-15 anzahl:2');
    expect(dated).not.toBe(german);
    expect(await printedFor(session, output, '/wotd-history date:2025-01-15 anzahl:2')).toBe(dated);
  });

  it('an English console knows the English names alone', async () => {
    const { session, output } = consoleIn('en');
    expect(await printedFor(session, output, '/wotd-verlauf anzahl:2')).toMatch(/^There is no command \/wotd-verlauf\. Commands: \/wotd, \/wotd-history,/);
    expect(await printedFor(session, output, '/wotd-history anzahl:2')).toMatch(/^\/wotd-history has no option “anzahl”/);
  });

  it('a mistyped German name gets a German "Did you mean" with the German name', async () => {
    const { session, output } = consoleIn('de');
    expect(await printedFor(session, output, '/wotd-verluaf')).toMatch(/^Es gibt keinen Befehl \/wotd-verluaf\. Meintest du \/wotd-verlauf\? Befehle: \/wotd, \/wotd-verlauf, \/wotd-suche,/);
    expect(await printedFor(session, output, '/wotd-verlauf anzhal:2')).toBe(
      '/wotd-verlauf hat keine Option „anzhal“. Meintest du anzahl? Seine Optionen: datum, anzahl.\n\n',
    );
    expect(await printedFor(session, output, '/wotd-daten exportiern')).toMatch(/„exportiern“ gehört nicht dazu\. Meintest du exportieren\? Zum Beispiel: \/wotd-daten exportieren/);
    // A slip in an English name still points to the English one.
    expect(await printedFor(session, output, '/wotd-histroy')).toMatch(/Meintest du \/wotd-history\?/);
  });

  it('help and usage show the German names, as the German texts write them', async () => {
    const { session, output } = consoleIn('de');
    const help = await printedFor(session, output, 'help');
    expect(help).toContain('  /wotd-verlauf [datum:…] [anzahl:…]\n');
    expect(help).toContain('      anzahl: ');
    expect(help).toContain('  /wotd-daten exportieren\n');
    expect(help).not.toContain('/wotd-history');
    expect(await printedFor(session, output, '/wotd-suche')).toBe('/wotd-suche braucht wort:…. Versuch: /wotd-suche wort:…\n\n');
  });

  it("the first screen's examples use the German names, and each runs", () => {
    const banner = consoleBanner({ kind: 'remote', url: 'http://127.0.0.1:1' }, undefined, null, translatorFor('de'), consoleNames('de'));
    const examples = banner.split('\n').filter((row) => row.startsWith('  /'));
    expect(examples).toEqual(['  /wotd datum:2025-01-14', '  /wotd-verlauf anzahl:5', '  /wotd-suche wort:andante']);
    for (const example of examples) expect(parseConsoleLine(example, commands, translatorFor('de'), consoleNames('de')).kind, example).toBe('command');
    const english = consoleBanner({ kind: 'remote', url: 'http://127.0.0.1:1' }, undefined, null, translatorFor('en'), consoleNames('en'));
    expect(english).toContain('  /wotd-history limit:5\n');
  });

  it('takes a choice by its German name, its English name or its value', () => {
    const t = translatorFor('de');
    const names = consoleNames('de');
    for (const given of ['kompakt', 'Kompakt', 'compact']) {
      const input = parseConsoleLine(`/wotd-abonnieren-dm stil:${given}`, commands, t, names);
      expect(input.kind, given).toBe('command');
      if (input.kind === 'command') expect(input.invocation.values.get('style')).toBe('compact');
    }
    const wrong = parseConsoleLine('/wotd-abonnieren-dm stil:winzig', commands, t, names);
    expect(wrong.kind === 'error' && wrong.message).toContain('vollständig, kompakt');
  });

  it('completes German names first, English ones when only they fit', async () => {
    const { session } = consoleIn('de');
    expect(await session.complete('/wotd-v')).toEqual([['/wotd-verlauf '], '/wotd-v']);
    expect(await session.complete('/wotd-h')).toEqual([['/wotd-history '], '/wotd-h']);
    expect(await session.complete('/wotd-verlauf an')).toEqual([['anzahl:'], 'an']);
    expect(await session.complete('/wotd-history li')).toEqual([['limit:'], 'li']);
    expect(await session.complete('/wotd-daten ex')).toEqual([['exportieren '], 'ex']);
    expect(await session.complete('/wotd-abonnieren-dm stil:k')).toEqual([['stil:kompakt '], 'stil:k']);
    expect(await session.complete('/wotd-abonnieren-dm style:')).toEqual([['style:vollständig', 'style:kompakt'], 'style:']);
  });
});

/** `/name` and the word after it, as a catalog's text mentions a command (`/wotd-daten exportieren`, `/wotd-suche wort:…`). */
const MENTION = /(?<![\p{L}\p{N}_/:.{-])\/([\p{L}\p{N}_'-]+)(?:[ \u00a0]([\p{L}\p{N}_'-]+)(?=[:\s`"“”„«»。、，）]|$))?/gu;

describe('every catalog', () => {
  const definitions = commands.map((command) => command.data.toJSON());
  for (const catalog of CATALOG_LOCALES) {
    it(`${catalog}: every command a message mentions is one its console accepts, with its subcommand or option`, () => {
      const names = consoleNames(catalog);
      let seen = 0;
      for (const [key, text] of Object.entries(CATALOGS[catalog])) {
        for (const match of text.matchAll(MENTION)) {
          const [, name = '', next] = match;
          const found = names.find(definitions, name);
          expect(found, `${catalog} ${key}: /${name}`).toBeDefined();
          if (!found) continue;
          seen += 1;
          const command = commands[definitions.indexOf(found)]!;
          const subcommands = subcommandsOf(command);
          const after = text.slice((match.index ?? 0) + match[0].length);
          if (subcommands.length > 0 && next !== undefined) {
            expect(names.find(subcommands, next), `${catalog} ${key}: /${name} ${next}`).toBeDefined();
          } else if (next !== undefined && after.startsWith(':')) {
            expect(names.find(commandOptions(command), next), `${catalog} ${key}: /${name} ${next}:`).toBeDefined();
          }
        }
      }
      expect(seen).toBeGreaterThan(5);
    });

    it(`${catalog}: no name its console accepts stands for two commands, subcommands, options or choices`, () => {
      const names = consoleNames(catalog);
      const distinct = (entries: Parameters<typeof names.all>[0], where: string) => {
        const taken = new Map<string, string>();
        for (const entry of entries) {
          for (const name of new Set([entry.name.toLowerCase(), names.shown(entry).toLowerCase()])) {
            expect(taken.get(name) ?? entry.name, `${catalog} ${where}: ${name}`).toBe(entry.name);
            taken.set(name, entry.name);
          }
        }
      };
      distinct(definitions, 'commands');
      for (const command of commands) {
        const subcommands = subcommandsOf(command);
        distinct(subcommands, `/${command.data.name}`);
        for (const subcommand of [null, ...subcommands.map((sub) => sub.name)]) {
          const options = commandOptions(command, subcommand);
          distinct(options, `/${command.data.name} ${subcommand ?? ''}`);
          for (const option of options) {
            if ('choices' in option && option.choices) distinct(option.choices, `/${command.data.name} ${option.name}`);
          }
        }
      }
    });
  }
});
