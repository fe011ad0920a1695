import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    globalSetup: ['./test/support/build-setup.ts', './test/support/redis-setup.ts', './test/support/postgres-setup.ts'],
    setupFiles: ['./test/support/process-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    reporters: ['default', './test/support/summary-reporter.ts', './test/faults/fault-reporter.ts', './test/support/spec-reporter.ts'],
  },
});
