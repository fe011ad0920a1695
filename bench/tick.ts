/**
 * `npm run bench:tick [-- --stores sqlite,postgres,redis --n 10000,100000 --states sent,later --ticks 10]`: the
 * daily scheduler's idle tick with N subscriptions, on each store, in two states of a day: "sent" (every post time
 * has passed today and every post is recorded as sent) and "later" (every post time is still ahead today).
 *
 * For each store, N and state, the store is seeded here (SubscriptionStore.putMany; for "sent" a delivery record
 * per channel), then a child process (bench/tick-child.ts) opens it as the bot does (the due-time index checked or
 * built), runs the scheduler's first pass and then `--ticks` idle ticks, one simulated minute apart, on a clock
 * fixed at 12:00 UTC of a June day. The child runs twice: the first start places every entry the seeding wrote
 * (due at once, as after an upgrade or a copy: placing_pass_ms); the second is an ordinary restart, whose figures
 * the line gives: startup_ms (spawn, tsx's compilation included, to the first pass done), first_pass_ms,
 * cpu_ms_per_idle_tick and tick_wall_ms (means over the idle ticks, CPU from process.cpuUsage), idle_rss_mb after
 * them and rss_climb_mb (the most RSS rose during them); and, as a baseline in the same process, full_scan_cpu_ms
 * and full_scan_wall_ms: one pass reading what every tick read before the index (every subscription, and the
 * delivery records of those whose post time has passed).
 * One `bench tick: …` line per run. Loopback only: SQLite in a temp folder, PostgreSQL at POSTGRES_BENCH_URL
 * (postgres://postgres@127.0.0.1:5432/postgres) in a schema of its own, Redis at REDIS_BENCH_URL
 * (redis://127.0.0.1:6379) under a key prefix of its own; each is removed afterwards.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Pool } from 'pg';
import { SubscriptionStore } from '../src/schedule/subscription-store.ts';
import type { Subscription } from '../src/schedule/subscription.ts';
import type { StoreLocation } from '../src/store/open-store.ts';

const POSTGRES_URL = process.env.POSTGRES_BENCH_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_BENCH_URL ?? 'redis://127.0.0.1:6379';
export const BENCH_DAY = '2026-06-15';
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
      env: { ...process.env, BENCH_TICK_LOCATION: JSON.stringify(location), BENCH_TICK_TICKS: String(ticks), BENCH_TICK_SPAWNED_AT: String(Date.now()) },
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

async function main(): Promise<void> {
  const stores = list<StoreName>('stores', 'sqlite,postgres,redis', ['sqlite', 'postgres', 'redis']);
  const sizes = option('n', '10000,100000').split(',').map((value) => Math.max(1, Math.min(2_000_000, Number.parseInt(value, 10) || 0)));
  const states = list<State>('states', 'sent,later', ['sent', 'later']);
  const ticks = Math.max(1, Math.min(100, Number.parseInt(option('ticks', '10'), 10) || 10));
  const lines: string[] = [];
  for (const store of stores) {
    for (const n of sizes) {
      for (const state of states) {
        const { location, remove } = await freshStore(store);
        try {
          const seedStart = performance.now();
          await seed(location, n, state);
          const seeded = Math.round(performance.now() - seedStart);
          // The first start places every entry written by the seeding (as after an upgrade or a copy); the second
          // is an ordinary restart, and its figures are the line's.
          const placing = await runChild(location, 1);
          const result = await runChild(location, ticks);
          const line = `bench tick: store=${store} n=${n} state=${state} ticks=${ticks} ${Object.entries(result).map(([key, value]) => `${key}=${value}`).join(' ')} seed_ms=${seeded} placing_pass_ms=${placing.first_pass_ms}`;
          lines.push(line);
          process.stdout.write(`${line}\n`);
        } finally {
          await remove();
        }
      }
    }
  }
  if (lines.length > 1) process.stdout.write(`\n${lines.join('\n')}\n`);
}

await main();
