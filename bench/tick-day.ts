/** The day bench:tick seeds its stores for ("sent": every post of it made), and that day's noon, where its clock starts. */
export const BENCH_DAY = '2026-06-15';
export const BENCH_NOON = Date.parse(`${BENCH_DAY}T12:00:00Z`);
