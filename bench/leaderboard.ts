/**
 * npm run bench:leaderboard — /wotd-leaderboard at 100,000 members on SQLite, PostgreSQL and Redis (bench/board.ts
 * says what is measured). One line per store: `bench leaderboard: backend=… members=100000 p50=… p99=… …`, times in
 * ms; a store whose server is not there is skipped.
 */
import { BOARD_MEMBERS, measureBoard } from './board.ts';
import { benchBackends } from './store-backends.ts';

for (const backend of benchBackends) {
  const figures = await measureBoard(backend, { savedWords: false });
  const fields: Record<string, string | number | null> = figures
    ? {
        p50: figures.p50,
        p99: figures.p99,
        page_p50: figures.pageP50,
        page_p99: figures.pageP99,
        baseline_p50: figures.baselineP50,
        baseline_p99: figures.baselineP99,
        baseline_page_p99: figures.baselinePageP99,
        floor_p50: figures.floorP50,
        floor_p99: figures.floorP99,
        upgrade_ms: figures.upgradeMs,
        bytes_per_member: figures.bytesPerMember,
      }
    : { skipped: 'unreachable' };
  const shown = Object.entries(fields).flatMap(([key, value]) => (value === null ? [] : [`${key}=${value}`]));
  process.stdout.write(`bench leaderboard: backend=${backend.name} members=${BOARD_MEMBERS} ${shown.join(' ')}\n`);
}
process.exit(0);
