import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestModule } from 'vitest/node';
import { DEVIATIONS } from './discord/spec-deviations.ts';
import type { SpecTally } from './spec-ledger.ts';
import SpecReporter from './spec-reporter.ts';

/** A test file as the reporter sees it after a run: only its meta matters here. */
const fileWith = (tally: SpecTally | undefined): TestModule => ({ meta: () => (tally ? { discordSpec: tally } : {}) }) as unknown as TestModule;

describe('the discord-spec summary', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('adds up the files (each ran in its own fork), counting a route exercised by two of them once', () => {
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    const one: SpecTally = { routes: ['GET /gateway/bot', 'POST /channels/{channel_id}/messages'], requests: 10, responses: 9, dispatches: 4, violations: 0, deviationsUsed: [] };
    const two: SpecTally = { routes: ['POST /channels/{channel_id}/messages'], requests: 5, responses: 5, dispatches: 2, violations: 2, deviationsUsed: DEVIATIONS.slice(1).map((d) => d.id) };
    new SpecReporter().onTestRunEnd([fileWith(one), fileWith(undefined), fileWith(two)]);
    const lines = out.join('').trim().split('\n');
    expect(lines[0]).toBe('discord-spec: routes=2 requests=15 responses=14 violations=2');
    expect(lines[1]).toBe('discord-spec: gateway dispatches=6');
    expect(lines[2]).toBe(`discord-spec: allow-list entries no payload needed in this run: ${DEVIATIONS[0]?.id}`);
  });
});
