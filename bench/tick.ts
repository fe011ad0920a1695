/**
 * `npm run bench:tick [-- --stores sqlite,postgres,redis --n 10000,100000 --states sent,later --ticks 10 --repeat 1]`:
 * the daily scheduler's idle tick with N subscriptions, on each store, in two states of a day: "sent" (every post
 * time has passed today and every post is recorded as sent) and "later" (every post time is still ahead today).
 *
 * For each store and state, a store per N is seeded here (SubscriptionStore.putMany; for "sent" a delivery record
 * per channel), then a child process (bench/tick-child.ts) opens it as the bot does (the due-time index checked or
 * built), runs the scheduler's first pass and then `--ticks` idle ticks on a clock fixed at 12:00 UTC of a June day,
 * a simulated minute apart (closer with more than 29 ticks: the "later" posts start at 12:30). The first start on
 * each store places every entry the seeding wrote (due at once, as after an upgrade or a copy: placing_pass_ms, and
 * placing_pass_rss_climb_mb, the most the child's RSS rose during that pass; first_pass_rss_climb_mb for any start);
 * then come `--repeat` rounds of ordinary restarts, each round going once through every N, so that the machine's
 * load weighs on every size alike. Each restart's line gives: startup_ms (spawn, tsx's compilation included, to the
 * first pass done), first_pass_ms, cpu_ms_per_idle_tick (mean, CPU of the whole process from process.cpuUsage) and
 * cpu_ms_p50 (median), main_thread_cpu_ms and other_threads_cpu_ms (Linux's per-thread schedstat, reading it
 * included: the JavaScript, and V8's and libuv's workers: GC, compilation, SQLite's statements), tick_wall_ms,
 * idle_rss_mb after the ticks and rss_climb_mb (the most RSS rose during them), load1 (the 1-minute load average);
 * with `--prune`, one daily pruning pass of delivery records (what the first tick of each UTC day runs): prune_pass,
 * prune_cpu_ms, prune_wall_ms, prune_rss_climb_mb and rss_after_prune_mb; and, as a baseline in the same process
 * unless `--no-scan`, full_scan_cpu_ms and full_scan_wall_ms: one pass reading what every tick read before the
 * index (every subscription, and the delivery records of those whose post time has passed). With more than one N,
 * a `bench tick growth: …` line gives each N's median cpu_ms_per_idle_tick over the rounds and its ratio to the
 * smallest N's.
 * `--keep` leaves each seeded store in place and prints the `--reuse '<location>'` that measures it again without
 * seeding (a 1,000,000-subscription store takes 10 to 20 minutes to seed and place); `--reuse` also takes a JSON
 * array of locations, measured in rounds like the sizes of one run. Remove a kept store by hand.
 * Loopback only: SQLite in a temp folder, PostgreSQL at POSTGRES_BENCH_URL
 * (postgres://postgres@127.0.0.1:5432/postgres) in a schema of its own, Redis at REDIS_BENCH_URL
 * (redis://127.0.0.1:6379) under a key prefix of its own; each is removed afterwards unless kept.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Pool } from 'pg';
import { SubscriptionStore } from '../src/schedule/subscription-store.ts';
import type { Subscription } from '../src/schedule/subscription.ts';
import type { StoreLocation } from '../src/store/open-store.ts';
import { BENCH_DAY } from './tick-day.ts';

const POSTGRES_URL = process.env.POSTGRES_BENCH_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_BENCH_URL ?? 'redis://127.0.0.1:6379';
const PER_GUILD = 500;
const SEED_BATCH = 5_000;

type StoreName = 'sqlite' | 'postgres' | 'redis';
type State = 'sent' | 'later';

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
}

function list<T extends string>(name: string, fallback: string, allowed: readonly T[]): T[] {
  const values = option(name, fallback).split(',').map((value) => value.trim());
  for (const value of values) if (!(allowed as readonly string[]).includes(value)) throw new Error(`--${name}: ${value} is not one of ${allowed.join(', ')}`);
  return values as T[];
}

/** HH:MM for the i-th subscription: spread over the morning ("sent") or the evening ("later") of the bench day. */
function timeOf(i: number, state: State): string {
  const minute = (state === 'sent' ? 0 : 12 * 60 + 30) + (i % (11 * 60));
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}

function subscription(i: number, state: State): Subscription {
  const channelId = String(100_000_000_000_000_000n + BigInt(i));
  return {
    guildId: `g${Math.floor(i / PER_GUILD)}`,
    channelId,
    channelName: `c${i}`,
    time: timeOf(i, state),
    timeZone: 'UTC',
    roleId: null,
    createdBy: 'bench',
    createdAt: '2026-01-01T00:00:00.000Z',
    enabledAt: '2026-01-01T00:00:00.000Z',
    status: { state: 'active' },
  };
}

async function freshStore(store: StoreName): Promise<{ location: StoreLocation; remove: () => Promise<void> }> {
  if (store === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'wotd-bench-tick-'));
    return { location: { url: `sqlite://${join(dir, 'store.sqlite')}` }, remove: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (store === 'postgres') {
    const schema = `bench_tick_${randomBytes(6).toString('hex')}`;
    const admin = new Pool({ connectionString: POSTGRES_URL, max: 1 });
    await admin.query(`CREATE SCHEMA ${schema}`);
    const url = new URL(POSTGRES_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return {
      location: { url: url.href },
      remove: async () => {
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.end();
      },
    };
  }
  const keyPrefix = `wotd-bench-tick:${randomBytes(6).toString('hex')}:`;
  return {
    location: { url: REDIS_URL, keyPrefix },
    remove: async () => {
      const redis = new Redis(REDIS_URL);
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
      redis.disconnect();
    },
  };
}

async function seed(location: StoreLocation, n: number, state: State): Promise<void> {
  const store = await SubscriptionStore.open(location);
  try {
    for (let start = 0; start < n; start += SEED_BATCH) {
      const batch = Array.from({ length: Math.min(SEED_BATCH, n - start) }, (_, i) => subscription(start + i, state));
      await store.putMany(batch);
      // A few writes at a time: PostgreSQL's pool has 5 connections.
      for (let from = 0; state === 'sent' && from < batch.length; from += 50) {
        await Promise.all(
          batch.slice(from, from + 50).map(({ channelId, time }) =>
            store.putDelivery({ channelId, day: BENCH_DAY, state: 'sent', nonce: 'bench', attempts: 1, messageId: '1', updatedAt: `${BENCH_DAY}T${time}:01.000Z` }),
          ),
        );
      }
    }
  } finally {
    await store.close();
  }
}

function runChild(location: StoreLocation, ticks: number): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'tick-child.ts')], {
      env: {
        ...process.env,
        BENCH_TICK_LOCATION: JSON.stringify(location),
        BENCH_TICK_TICKS: String(ticks),
        BENCH_TICK_SPAWNED_AT: String(Date.now()),
        BENCH_TICK_SCAN: process.argv.includes('--no-scan') ? '0' : '1',
        BENCH_TICK_PRUNE: process.argv.includes('--prune') ? '1' : '0',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.split('\n').find((text) => text.startsWith('result '));
      if (code !== 0 || !line) return reject(new Error(`tick child exited ${code}: ${out.slice(-500)}`));
      resolve(Object.fromEntries(line.slice('result '.length).split(' ').map((pair) => pair.split('=') as [string, string])));
    });
  });
}

function storeOf(location: StoreLocation): StoreName {
  if (location.url.startsWith('sqlite:')) return 'sqlite';
  if (location.url.startsWith('postgres')) return 'postgres';
  if (location.url.startsWith('redis')) return 'redis';
  throw new Error(`--reuse: ${location.url} is not a SQLite, PostgreSQL or Redis store`);
}

interface Seeded {
  head: string;
  tail: string;
  n: number;
  location: StoreLocation;
  remove: () => Promise<void>;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/**
 * `--repeat` rounds of ordinary restarts of the child, each round going once through every store given, so that
 * the machine's load, which moves from minute to minute, weighs on every size alike; then, with more than one size,
 * one line comparing each size's median cpu_ms_per_idle_tick over the rounds with the smallest's.
 */
async function measureRounds(seeded: readonly Seeded[], ticks: number, repeat: number): Promise<string[]> {
  const lines: string[] = [];
  const cpu = new Map<Seeded, number[]>(seeded.map((one) => [one, []]));
  for (let round = 0; round < repeat; round += 1) {
    for (const one of seeded) {
      const result = await runChild(one.location, ticks);
      cpu.get(one)?.push(Number(result.cpu_ms_per_idle_tick));
      const line = `bench tick: ${one.head} ticks=${ticks} ${Object.entries(result).map(([key, value]) => `${key}=${value}`).join(' ')} load1=${loadavg()[0]?.toFixed(1)}${one.tail}`;
      lines.push(line);
      process.stdout.write(`${line}\n`);
    }
  }
  const base = seeded[0];
  if (seeded.length > 1 && base) {
    const baseline = median(cpu.get(base) ?? []);
    const sizes = seeded.map((one) => `n${one.n}=${median(cpu.get(one) ?? []).toFixed(2)}`).join(' ');
    const ratios = seeded.slice(1).map((one) => `ratio_${one.n}_to_${base.n}=${(median(cpu.get(one) ?? []) / baseline).toFixed(2)}`).join(' ');
    const line = `bench tick growth: ${base.head.replace(/ ?n=\d+/, '')} rounds=${repeat} median_cpu_ms_per_idle_tick ${sizes} ${ratios}`;
    lines.push(line);
    process.stdout.write(`${line}\n`);
  }
  return lines;
}

async function main(): Promise<void> {
  const stores = list<StoreName>('stores', 'sqlite,postgres,redis', ['sqlite', 'postgres', 'redis']);
  const sizes = option('n', '10000,100000').split(',').map((value) => Math.max(1, Math.min(2_000_000, Number.parseInt(value, 10) || 0)));
  const states = list<State>('states', 'sent,later', ['sent', 'later']);
  const ticks = Math.max(1, Math.min(1000, Number.parseInt(option('ticks', '10'), 10) || 10));
  const repeat = Math.max(1, Math.min(20, Number.parseInt(option('repeat', '1'), 10) || 1));
  const keep = process.argv.includes('--keep');
  const reused = option('reuse', '');
  const lines: string[] = [];
  if (reused !== '') {
    // Stores seeded and placed by an earlier run with --keep: their n and state are what that run's lines said.
    const given = JSON.parse(reused) as StoreLocation | StoreLocation[];
    const seeded = (Array.isArray(given) ? given : [given]).map((location, i): Seeded => ({
      head: `store=${storeOf(location)} reused=${i + 1}`,
      tail: '',
      n: i + 1,
      location,
      remove: async () => undefined,
    }));
    lines.push(...(await measureRounds(seeded, ticks, repeat)));
  }
  for (const store of reused === '' ? stores : []) {
    for (const state of states) {
      const seeded: Seeded[] = [];
      try {
        for (const n of sizes) {
          const { location, remove } = await freshStore(store);
          seeded.push({ head: `store=${store} n=${n} state=${state}`, tail: '', n, location, remove });
          const seedStart = performance.now();
          await seed(location, n, state);
          const seedMs = Math.round(performance.now() - seedStart);
          // The first start places every entry written by the seeding (as after an upgrade or a copy); the next
          // are ordinary restarts, and their figures are the lines'.
          const placing = await runChild(location, 1);
          const last = seeded.at(-1);
          if (last) last.tail = ` seed_ms=${seedMs} placing_pass_ms=${placing.first_pass_ms} placing_pass_rss_climb_mb=${placing.first_pass_rss_climb_mb}`;
        }
        lines.push(...(await measureRounds(seeded, ticks, repeat)));
      } finally {
        for (const { head, location, remove } of seeded) {
          if (keep) process.stdout.write(`kept: ${head} --reuse '${JSON.stringify(location)}'\n`);
          else await remove();
        }
      }
    }
  }
  if (lines.length > 1) process.stdout.write(`\n${lines.join('\n')}\n`);
}

await main();
