import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two files at a time at least: most files spend their time waiting on the targets they start
    // (timers, reply budgets, process exits), so vitest's default of one worker on a 2-CPU machine
    // left a CPU idle for most of the run.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
