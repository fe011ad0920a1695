import type { Reporter, TestModule } from 'vitest/node';
import { DEVIATIONS } from './discord/spec-deviations.ts';
import type { SpecTally } from './spec-ledger.ts';

/**
 * Ends the run with the local Discord server's spec check, summed over every test file (each reports its tally in
 * its meta, so forked workers add up): `discord-spec: routes=N requests=N responses=N violations=N`, where routes
 * counts the distinct spec operations exercised and violations include gateway dispatches'. Then the gateway dispatches
 * checked, and the allow-list entries (spec-deviations.ts) no payload of the run needed, if any.
 */
export default class SpecReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const tallies = testModules.map((module) => module.meta().discordSpec).filter((t): t is SpecTally => t !== undefined);
    const routes = new Set(tallies.flatMap((t) => t.routes));
    const used = new Set(tallies.flatMap((t) => t.deviationsUsed));
    const sum = (key: 'requests' | 'responses' | 'dispatches' | 'violations'): number => tallies.reduce((n, t) => n + t[key], 0);
    const lines = [`discord-spec: routes=${routes.size} requests=${sum('requests')} responses=${sum('responses')} violations=${sum('violations')}`];
    lines.push(`discord-spec: gateway dispatches=${sum('dispatches')}`);
    const unused = DEVIATIONS.map((d) => d.id).filter((id) => !used.has(id));
    if (sum('requests') > 0 && unused.length > 0) lines.push(`discord-spec: allow-list entries no payload needed in this run: ${unused.join(', ')}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
