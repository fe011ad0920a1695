/**
 * What the local Discord server's spec check saw in this test process: the routes exercised, the requests, responses
 * and gateway dispatches checked, and the violations not yet reported. The server records here (discord/spec-check.ts);
 * process-setup.ts fails the test that caused a violation and hands the file's tally to spec-reporter.ts in the file's
 * task meta. Dependency-free, so every test process can load it cheaply.
 */

export interface SpecViolation {
  /** The route as the spec names it, e.g. "POST /channels/{channel_id}/messages", or the gateway event name. */
  route: string;
  direction: 'request' | 'response' | 'gateway';
  /** Where in the payload, e.g. "body.embeds[0].type", "query.limit", "path.channel_id" or "status". */
  field: string;
  message: string;
  /** The response status, for response violations. */
  status?: number;
}

export interface SpecTally {
  routes: string[];
  requests: number;
  responses: number;
  dispatches: number;
  /** Violations that failed a test (those a test took on purpose with takeSpecViolations are not counted). */
  violations: number;
  /** Allow-list entries (spec-deviations.ts) that were needed by some payload. */
  deviationsUsed: string[];
}

declare module '@vitest/runner' {
  interface TaskMeta {
    /** The Discord spec check's tally for one test file. */
    discordSpec?: SpecTally;
  }
}

const PENDING_LIMIT = 1000;

class SpecLedger {
  readonly routes = new Set<string>();
  requests = 0;
  responses = 0;
  dispatches = 0;
  reported = 0;
  readonly deviationsUsed = new Set<string>();
  private pending: SpecViolation[] = [];
  /** Violations beyond PENDING_LIMIT since the last take (a benchmark never takes them): counted, not kept. */
  private overflow = 0;

  record(violation: SpecViolation): void {
    if (this.pending.length < PENDING_LIMIT) this.pending.push(violation);
    else this.overflow += 1;
  }

  /** The violations recorded since the last take, removed from the ledger, and how many more were not kept. */
  takeAll(): { kept: SpecViolation[]; more: number } {
    const taken = { kept: this.pending, more: this.overflow };
    this.pending = [];
    this.overflow = 0;
    return taken;
  }

  /** The violations recorded since the last take, removed from the ledger. */
  take(): SpecViolation[] {
    return this.takeAll().kept;
  }

  tally(): SpecTally {
    return {
      routes: [...this.routes].sort(),
      requests: this.requests,
      responses: this.responses,
      dispatches: this.dispatches,
      violations: this.reported,
      deviationsUsed: [...this.deviationsUsed].sort(),
    };
  }
}

export const specLedger = new SpecLedger();

/** Takes the violations recorded so far in this process, so a test that provokes them on purpose can assert them. */
export function takeSpecViolations(): SpecViolation[] {
  return specLedger.take();
}

export function formatViolation(v: SpecViolation): string {
  const status = v.status === undefined ? '' : ` (status ${v.status})`;
  return `${v.route} ${v.direction}${status}: ${v.field}: ${v.message}`;
}

/** The error a test fails with for these violations (undefined for none): each one's route, field and message. */
export function violationError(found: readonly SpecViolation[], when: string, notKept = 0): Error | undefined {
  const total = found.length + notKept;
  if (total === 0) return undefined;
  const shown = found.slice(0, 50).map((v) => `  ${formatViolation(v)}`);
  const more = total > shown.length ? [`  … and ${total - shown.length} more`] : [];
  return new Error(`the local Discord server saw ${total} departure(s) from Discord's API spec ${when}:\n${[...shown, ...more].join('\n')}`);
}

/**
 * Throws when the Discord server recorded spec violations since the last check (see violationError); they then
 * count in the run's `discord-spec:` line.
 */
export function failOnSpecViolations(when: string): void {
  const { kept, more } = specLedger.takeAll();
  const error = violationError(kept, when, more);
  if (!error) return;
  specLedger.reported += kept.length + more;
  throw error;
}
