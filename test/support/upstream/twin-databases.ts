import { mkdtemp, open, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { utcDateOf, type IsoDate } from '../../../src/wotd/dates.ts';
import type { Entry } from '../../../src/wotd/entry.ts';
import { dueMonths, publishedAt, snapshotFileName, snapshotMonthOf, writeSnapshot, type YearMonth } from '../../../src/service/snapshots.ts';

/**
 * The database pages of deployment A's site, as its code behaves when run (issue 23), for the twin:
 *
 * - `/databases` lists every `.db` file of its folder as a link, in the folder's order (not sorted); a `.db` file not
 *   named wotd_YYYY-MM.db makes the whole page a 500 (HTML).
 * - `/databases/download/<name>` sends any `.db` file of the folder: `application/x-sqlite3`, `Content-Disposition:
 *   inline`, `Cache-Control: no-cache`, an ETag and Last-Modified made from the file's time and size (so a rewrite
 *   changes them), 304 to a matching conditional request; an unknown name → 404 with the plain body
 *   `Database file not found`; a name with a slash in it (also written %2F) matches no route: Flask's HTML 404.
 * - A month's snapshot is written only when the service runs on the 1st: the twin acts as if it ran on every 1st
 *   (each due month appears, dated 00:00 UTC on the 1st after it) unless a test says a month is missing.
 */

export interface TwinDatabases {
  /** The folder the files are in. */
  readonly dir: string;
  /** Writes each due month that has no file and is neither missing nor put by hand; the pages call it themselves. */
  sync(): Promise<void>;
  /** Deletes the month's file and keeps it missing, as when the service did not run on that 1st. */
  setMissing(month: YearMonth): Promise<void>;
  /** Writes the month again, as a restart on the 1st does: a new Last-Modified (the twin's now) and ETag. */
  rewrite(month: YearMonth): Promise<void>;
  /** Puts these bytes in the folder under `name` (a hostile wotd_YYYY-MM.db, a stray.db); sync leaves it alone. */
  put(name: string, content: Uint8Array | string): Promise<void>;
  /** A sparse file of `bytes` bytes starting with `head`: a huge download that costs no disk. */
  putSparse(name: string, bytes: number, head?: Uint8Array | string): Promise<void>;
  /** Removes a file put by hand (or any file) from the folder; a due month's file comes back at the next sync. */
  remove(name: string): Promise<void>;
  /** Names of the `.db` files, in the folder's order. */
  names(): Promise<string[]>;
}

export const TWIN_DATABASE_RATE_LIMIT = 30;

const HTML_500 =
  '<!doctype html>\n<html lang=en>\n<title>500 Internal Server Error</title>\n<h1>Internal Server Error</h1>\n<p>The server could not complete your request.</p>\n';

export interface TwinReply {
  status: number;
  body: string | Buffer;
  headers: Record<string, string | number>;
}

function safeName(name: string): string {
  if (name === '' || /[/\\\0]/.test(name) || name === '.' || name === '..') throw new Error(`not a file name: ${JSON.stringify(name)}`);
  return name;
}

/** The site's way of making an entity tag: the file's modification time and size, nothing of its content. */
function etagOf(mtimeMs: number, size: number): string {
  return `"${Math.floor(mtimeMs)}-${size}"`;
}

export class TwinDatabaseFolder implements TwinDatabases {
  private readonly missing = new Set<YearMonth>();
  /** Names put by hand: sync never writes over them. */
  private readonly held = new Set<string>();
  private syncing: Promise<void> | undefined;

  private constructor(
    readonly dir: string,
    private readonly owned: boolean,
    private readonly entries: readonly Entry[],
    private readonly now: () => Date,
  ) {}

  static async create(entries: readonly Entry[], now: () => Date, dir?: string): Promise<TwinDatabaseFolder> {
    return new TwinDatabaseFolder(dir ?? (await mkdtemp(join(tmpdir(), 'wotd-twin-databases-'))), dir === undefined, entries, now);
  }

  private today(): IsoDate {
    return utcDateOf(this.now());
  }

  sync(): Promise<void> {
    // One at a time: a page and a test helper asking together must not write the same month twice.
    const run = (this.syncing ?? Promise.resolve()).then(() => this.writeDue());
    this.syncing = run.catch(() => undefined);
    return run;
  }

  private async writeDue(): Promise<void> {
    const present = new Set(await readdir(this.dir));
    for (const month of dueMonths(this.entries, this.today(), 1_200)) {
      const name = snapshotFileName(month);
      if (present.has(name) || this.missing.has(month) || this.held.has(name)) continue;
      await this.writeMonth(month, publishedAt(month));
    }
  }

  private async writeMonth(month: YearMonth, at: Date): Promise<void> {
    const path = join(this.dir, snapshotFileName(month));
    await writeSnapshot(path, this.entries, month);
    await utimes(path, at, at);
  }

  async setMissing(month: YearMonth): Promise<void> {
    await this.syncing;
    this.missing.add(month);
    await rm(join(this.dir, snapshotFileName(month)), { force: true });
  }

  async rewrite(month: YearMonth): Promise<void> {
    await this.syncing;
    const name = snapshotFileName(month);
    this.missing.delete(month);
    this.held.delete(name);
    const before = await stat(join(this.dir, name)).catch(() => undefined);
    // A later time than the file had, even when the test's clock has not moved, so the ETag surely changes.
    const at = Math.max(this.now().getTime(), before ? Math.floor(before.mtimeMs / 1000) * 1000 + 1000 : 0);
    await this.writeMonth(month, new Date(at));
  }

  async put(name: string, content: Uint8Array | string): Promise<void> {
    await this.syncing;
    this.held.add(safeName(name));
    await writeFile(join(this.dir, name), content);
  }

  async putSparse(name: string, bytes: number, head: Uint8Array | string = ''): Promise<void> {
    await this.syncing;
    this.held.add(safeName(name));
    const handle = await open(join(this.dir, name), 'w');
    try {
      await handle.write(typeof head === 'string' ? Buffer.from(head) : head, 0);
      await handle.truncate(bytes);
    } finally {
      await handle.close();
    }
  }

  async remove(name: string): Promise<void> {
    await this.syncing;
    this.held.delete(safeName(name));
    await rm(join(this.dir, name), { force: true });
  }

  async names(): Promise<string[]> {
    return (await readdir(this.dir)).filter((name) => name.endsWith('.db'));
  }

  /** The listing page. */
  async listing(): Promise<TwinReply> {
    await this.sync();
    const names = await this.names();
    if (names.some((name) => snapshotMonthOf(name) === null)) {
      return { status: 500, body: HTML_500, headers: { 'content-type': 'text/html; charset=utf-8' } };
    }
    const links = names.map((name) => `      <li><a href="/databases/download/${name}">${name}</a></li>`).join('\n');
    const body = `<!DOCTYPE html>\n<html lang="en">\n<head><title>Word of the Day | Databases</title></head>\n<body>\n  <main>\n    <h1>Databases</h1>\n    <ul>\n${links}\n    </ul>\n  </main>\n</body>\n</html>\n`;
    return { status: 200, body, headers: { 'content-type': 'text/html; charset=utf-8' } };
  }

  /**
   * A download, streamed from the file (a huge sparse one included). `rawName` is the path after the prefix as
   * sent; the site's router decodes it first, so %2F is a slash there too.
   */
  async download(request: IncomingMessage, response: ServerResponse, rawName: string, notFoundHtml: string): Promise<number> {
    await this.sync();
    let name: string;
    try {
      name = decodeURIComponent(rawName);
    } catch {
      name = rawName;
    }
    const plain404 = (): number => {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'content-length': 23 });
      response.end('Database file not found');
      return 404;
    };
    if (name.includes('/')) {
      response.writeHead(404, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(notFoundHtml) });
      response.end(notFoundHtml);
      return 404;
    }
    // Only a name the folder lists is opened: nothing sent can reach outside it.
    if (!name.endsWith('.db') || !(await this.names()).includes(name)) return plain404();
    const handle = await open(join(this.dir, name), 'r').catch(() => undefined);
    if (!handle) return plain404();
    const info = await handle.stat();
    const headers = {
      'content-type': 'application/x-sqlite3',
      'content-disposition': 'inline',
      'cache-control': 'no-cache',
      etag: etagOf(info.mtimeMs, info.size),
      'last-modified': new Date(info.mtimeMs).toUTCString(),
    };
    const ifNoneMatch = request.headers['if-none-match'];
    const ifModifiedSince = request.headers['if-modified-since'];
    const unchanged =
      ifNoneMatch !== undefined
        ? ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === headers.etag)
        : ifModifiedSince !== undefined && Math.floor(info.mtimeMs / 1000) * 1000 <= Date.parse(ifModifiedSince);
    if (unchanged) {
      await handle.close();
      response.writeHead(304, headers);
      response.end();
      return 304;
    }
    response.writeHead(200, { ...headers, 'content-length': info.size });
    if (request.method === 'HEAD') {
      await handle.close();
      response.end();
      return 200;
    }
    const stream = handle.createReadStream({ autoClose: true });
    stream.pipe(response);
    response.on('close', () => stream.destroy());
    return 200;
  }

  async close(): Promise<void> {
    await this.syncing;
    if (this.owned) await rm(this.dir, { recursive: true, force: true });
  }
}
