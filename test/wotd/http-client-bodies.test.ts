import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, MAX_BODY_BYTES } from '../../src/wotd/http-client.ts';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/upstream/scripted-upstream.ts';

/**
 * Defects the generated upstream edge (test/faults/upstream-responses.test.ts) found in reading a body, each
 * pinned here on loopback: a compressed body that stalls, bytes that are not UTF-8, and a gzip bomb.
 */

const ENTRY = JSON.stringify({ date: '2024-06-15', word: 'aplomb', pos: 'noun', ipa: '/x/', definition: 'meaning 45' });

let service: ScriptedUpstream;

beforeAll(async () => {
  service = await startScriptedUpstream(() => ({ status: 200, body: ENTRY }));
});

afterAll(async () => {
  await service.close();
});

describe('reading the service’s answer', () => {
  it('ends at the deadline a gzip-labelled body that is not gzip and is cut short (the read stalled for ever before)', async () => {
    service.reset(() => ({ status: 200, headers: { 'content-encoding': 'gzip' }, body: ENTRY, cutAfter: 53 }));
    const started = performance.now();
    const attempt = await Promise.race([
      getJson(`${service.url}/query`, { timeoutMs: 300, now: Date.now() }),
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 5_000)),
    ]);
    expect(attempt).not.toBe('hung');
    expect(attempt).toMatchObject({ kind: 'retryable' });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('refuses a body that is not valid UTF-8 instead of reading it with replacement characters', async () => {
    const at = ENTRY.indexOf('aplomb');
    const body = Buffer.concat([Buffer.from(ENTRY.slice(0, at)), Buffer.from([0x80, 0xc0, 0xaf, 0xff]), Buffer.from(ENTRY.slice(at))]);
    service.reset(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body }));
    const attempt = await getJson(`${service.url}/query`, { timeoutMs: 2_000, now: Date.now() });
    expect(attempt).toMatchObject({ kind: 'bad_response', message: expect.stringMatching(/not valid UTF-8/) });
  });

  it('stops reading a gzip bomb (400 MB in about 1 KB, `gzip, gzip`) at the decoded limit', async () => {
    const member = gzipSync(Buffer.alloc(1024 * 1024, 0x20), { level: 9 });
    const bomb = gzipSync(Buffer.concat(Array.from({ length: 400 }, () => member)), { level: 9 });
    expect(bomb.length).toBeLessThan(4 * 1024);
    service.reset(() => ({ status: 200, headers: { 'content-encoding': 'gzip, gzip' }, body: bomb }));
    const attempt = await getJson(`${service.url}/query`, { timeoutMs: 5_000, now: Date.now() });
    expect(attempt).toMatchObject({ kind: 'bad_response', message: expect.stringMatching(new RegExp(`passed the ${MAX_BODY_BYTES}-byte limit`)) });
  });
});
