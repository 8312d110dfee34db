import { defineConfig } from 'vitest/config';

// `npm run sweep`: every third-party target of docs/*-compatibility.md at several seeds, the
// suites as a user runs them. Minutes long, so not part of `npm test` (which runs each
// table once, with the tests' seeds): run it before changing a check or a table, and nightly.
export default defineConfig({
  test: {
    include: ['test/compatibility/*.sweep.ts'],
    // load.ts: WIRECHECK_SWEEP_LOAD busy processes beside the sweep, ended with it.
    globalSetup: ['test/global-setup.ts', 'test/compatibility/load.ts'],
    // One target at a time per file; a target's seeds run one after another.
    testTimeout: 3_600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // WIRECHECK_SWEEP_ONLY leaves some files without a target (a name that picks nothing is an error).
    passWithNoTests: true,
  },
});
