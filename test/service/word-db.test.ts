import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readWordDb, WordDbError, writeWordDb } from '../../src/service/word-db.ts';
import { startWotdService } from '../../src/service/server.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { tempDir } from './http.ts';

const ENTRY: Entry = { date: '2025-01-01', word: 'serif', pos: 'noun', ipa: '/ˈsɛrɪf/', definition: 'a short line' };

function runSql(path: string, sql: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(path, (openError) => {
      if (openError) return reject(openError);
      db.exec(sql, (error) => db.close(() => (error ? reject(error) : resolve())));
    });
  });
}

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('worddb'));
});
afterEach(async () => {
  await cleanup();
});

describe('writeWordDb / readWordDb', () => {
  it('round-trips entries in date order and replaces an entry written again for the same date', async () => {
    const path = join(dir, 'w.sqlite');
    const later: Entry = { date: '2025-01-02', word: 'tocsin', pos: 'noun', ipa: '/ˈtɑksɪn/', definition: 'say "alarm"' };
    await writeWordDb(path, [later, ENTRY]);
    expect(await readWordDb(path)).toEqual([ENTRY, later]);
    await writeWordDb(path, [{ ...ENTRY, word: 'sans' }]);
    expect((await readWordDb(path)).map((entry) => entry.word)).toEqual(['sans', 'tocsin']);
  });

  it('reads NULL ipa, pos and definition as empty strings', async () => {
    const path = join(dir, 'w.sqlite');
    await writeWordDb(path, []);
    await runSql(path, "INSERT INTO words (date, word) VALUES ('2025-03-01', 'quire')");
    expect(await readWordDb(path)).toEqual([{ date: '2025-03-01', word: 'quire', pos: '', ipa: '', definition: '' }]);
  });

  it('refuses a missing file, a file that is not SQLite and a database without the words table', async () => {
    await expect(readWordDb(join(dir, 'missing.sqlite'))).rejects.toThrow(
      new WordDbError(`cannot open word database ${join(dir, 'missing.sqlite')}: the file does not exist or cannot be opened`),
    );
    const text = join(dir, 'text.sqlite');
    await writeFile(text, 'this is not a database, just some text that is long enough to have a header\n'.repeat(20));
    await expect(readWordDb(text)).rejects.toThrow(/^cannot read word database .*text\.sqlite: the file is not a SQLite database$/);
    const other = join(dir, 'other.sqlite');
    await runSql(other, 'CREATE TABLE things (id INTEGER)');
    await expect(readWordDb(other)).rejects.toThrow(/no such table: words \(expected table words\(date, word, ipa, pos, definition\)\)/);
  });

  it('refuses a row that breaks the entry schema, naming it', async () => {
    const path = join(dir, 'w.sqlite');
    await writeWordDb(path, [ENTRY]);
    await runSql(path, "INSERT INTO words (date, word) VALUES ('2025-02-30', 'impossible')");
    await expect(readWordDb(path)).rejects.toThrow(/^bad row in word database .*: rowid 2 \(date "2025-02-30"\), date: expected a real calendar date/);
    await writeWordDb(path, []);
    await runSql(path, "DELETE FROM words; INSERT INTO words (date, word) VALUES ('2025-03-01', '  ')");
    await expect(readWordDb(path)).rejects.toThrow(/word: word must not be empty/);
    await runSql(path, "DELETE FROM words; INSERT INTO words (date, word) VALUES ('01-03-2025', 'quire')");
    await expect(readWordDb(path)).rejects.toThrow(/date "01-03-2025"/);
  });
});

describe('startWotdService start-up errors', () => {
  it('rejects with one line when the database is missing', async () => {
    const path = join(dir, 'missing.sqlite');
    const failure = startWotdService({ dbPath: path, variant: 'A' });
    await expect(failure).rejects.toBeInstanceOf(WordDbError);
    await expect(failure).rejects.toThrow(`cannot open word database ${path}: the file does not exist or cannot be opened`);
  });

  it('rejects when the port is taken', async () => {
    const path = join(dir, 'w.sqlite');
    await writeWordDb(path, [ENTRY]);
    const first = await startWotdService({ dbPath: path, variant: 'B' });
    try {
      await expect(startWotdService({ dbPath: path, variant: 'B', port: first.port })).rejects.toThrow(
        `cannot listen on 127.0.0.1:${first.port}: the port is already in use`,
      );
    } finally {
      await first.close();
      await first.close();
    }
  });
});
