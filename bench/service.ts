/**
 * Throughput and latency of the Word-of-the-Day service on loopback, rate limit off, against the sample data.
 * The service runs in its own process (`wotd-bot serve`), as in production, so the client's work does not
 * share its event loop. Ends with one line `bench service: …`.
 *
 *   npm run bench:service [-- --requests N --concurrency C]
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { addDays, daysBetween, utcDateOf } from '../src/wotd/dates.ts';

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const value = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a whole number, at least 1`);
  return value;
}

const REQUESTS = flag('--requests', 20_000);
const CONCURRENCY = flag('--concurrency', 32);
const TIME_CAP_MS = 12_000;

function startService(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    ['bin/wotd-bot.js', 'serve', '--port', '0', '--rate-limit', '0', '--db', 'data/words.sqlite'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        resolve({
          url: match[1],
          stop: async () => {
            child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    void exited.then(() => reject(new Error('the service exited before listening')));
  });
}

function get(agent: Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function percentile(sorted: readonly number[], share: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** Sends `total` requests, `CONCURRENCY` at a time on kept-alive connections. */
async function drive(paths: (i: number) => string, base: string, total: number): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + TIME_CAP_MS;
  const worker = async (): Promise<void> => {
    while (next < total && performance.now() < deadline) {
      const i = next;
      next += 1;
      const sent = performance.now();
      const status = await get(agent, `${base}${paths(i)}`);
      latencies.push(performance.now() - sent);
      if (status !== 200) errors += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), errors };
}

async function main(): Promise<number> {
  const service = await startService();
  try {
    const today = utcDateOf(new Date());
    const span = daysBetween('2020-01-01', today);
    // A fixed stride through the past, so every run asks for the same dates.
    const dateAt = (i: number): string => addDays('2020-01-01', (i * 7919) % span);
    const queryPath = (i: number): string => `/query?date=${dateAt(i)}`;
    const previousPath = (i: number): string => `/query_previous?date=${dateAt(i)}&limit=${(i % 8) + 1}`;

    await drive(queryPath, service.url, 2_000);
    await drive(previousPath, service.url, 2_000);
    const query = await drive(queryPath, service.url, REQUESTS);
    const previous = await drive(previousPath, service.url, REQUESTS);

    const show = (name: string, result: Result): void => {
      process.stdout.write(
        `${name.padEnd(16)} ${result.rps.toFixed(0).padStart(7)} req/s   p50 ${result.p50.toFixed(2)} ms   ` +
          `p99 ${result.p99.toFixed(2)} ms   errors ${result.errors}\n`,
      );
    };
    process.stdout.write(`service on ${service.url}, ${REQUESTS} requests per endpoint, concurrency ${CONCURRENCY}\n`);
    show('/query', query);
    show('/query_previous', previous);
    const fixed = (value: number, digits: number): string => value.toFixed(digits);
    process.stdout.write(
      `bench service: query_rps=${fixed(query.rps, 0)} query_p50_ms=${fixed(query.p50, 2)} query_p99_ms=${fixed(query.p99, 2)} ` +
        `previous_rps=${fixed(previous.rps, 0)} previous_p50_ms=${fixed(previous.p50, 2)} previous_p99_ms=${fixed(previous.p99, 2)}\n`,
    );
    return query.errors + previous.errors === 0 ? 0 : 1;
  } finally {
    await service.stop();
  }
}

process.exitCode = await main();
