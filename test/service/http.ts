import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: unknown;
}

/**
 * One HTTP request on a fresh connection (no agent), optionally from a chosen local address so tests can
 * act as different clients: every 127.x.y.z address reaches the loopback server on Linux.
 */
export function send(
  url: string,
  options: { method?: string; localAddress?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', agent: false, localAddress: options.localAddress, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const text = body.toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A temp directory removed by the returned cleanup. */
export async function tempDir(prefix: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `wotd-${prefix}-`));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A clock tests move by hand. */
export class ManualClock {
  constructor(private instant: number) {}

  readonly now = (): Date => new Date(this.instant);

  set(iso: string): void {
    this.instant = Date.parse(iso);
  }

  advance(ms: number): void {
    this.instant += ms;
  }
}
