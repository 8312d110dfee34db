import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { nodeVersionProblem } from '../bin/node-version.js';

const ROOT = resolve(import.meta.dirname, '..');

/** Files whose compiled form tests run as separate processes (target commands). */
const REQUIRED_OUTPUTS = [
  'dist/clients/messages/index.js',
  'dist/clients/agent/index.js',
  'dist/clients/tools/index.js',
  'dist/cli/main.js',
  'dist/cli/serve-mock-tools.js',
  'dist/mocks/tools/index.js',
  'dist/servers/tools/run.js',
  'dist/bench/peer-child.js',
  'dist/bench/stdio-echo-child.js',
  // The package's own entry points, imported by the examples as 'wirecheck' and 'wirecheck/vitest'.
  'dist/index.js',
  'dist/testing/vitest.js',
  // The bundles of the per-case programs and of the CLI (rolldown.config.ts), which bin/wirecheck.js runs.
  'dist/bundle/target-main.js',
  'dist/bundle/cli-main.js',
  'dist/bundle/mock-tools-stdio.js',
];

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * The output every build writes last: tsc emits only what changed (tsconfig.build.json is
 * incremental), then the bundler writes all of its files again.
 */
const LAST_OUTPUT = 'dist/bundle/target-main.js';

/** True when every required output exists and the last build is newer than every file under src/. */
export function distIsFresh(): boolean {
  if (!REQUIRED_OUTPUTS.every((out) => existsSync(join(ROOT, out)))) return false;
  return statSync(join(ROOT, LAST_OUTPUT)).mtimeMs >= newestMtime(join(ROOT, 'src'));
}

/**
 * Compile src/ to dist/ (tsconfig.build.json) and bundle the per-case programs and the CLI, as `npm run
 * build` does, so that tests can run the built implementations as real commands, the way the
 * harness runs any target. Type errors do
 * not stop the emit (they are the typecheck's business); missing outputs do.
 */
export function buildDist(): void {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], {
      cwd: ROOT,
      stdio: 'pipe',
    });
  } catch {
    // tsc exits non-zero on type errors but still emits.
  }
  // Unlike tsc's, the bundler's failure stops the run: without a fresh bundle every target
  // command would run yesterday's code.
  const rolldown = join(ROOT, 'node_modules', 'rolldown', 'bin', 'cli.mjs');
  execFileSync(process.execPath, [rolldown, '-c', join(ROOT, 'rolldown.config.ts')], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  const missing = REQUIRED_OUTPUTS.filter((out) => !existsSync(join(ROOT, out)));
  if (missing.length > 0) throw new Error(`the build did not produce ${missing.join(', ')}`);
}

/**
 * vitest globalSetup: check the Node.js version (vitest and wirecheck fail on an older one, late
 * and without naming the cause), then build once per test run.
 */
export function setup(): void {
  const problem = nodeVersionProblem();
  if (problem !== undefined) throw new Error(problem);
  // Run in a GitHub Actions job, every wirecheck a test starts with the test's environment would
  // wrap its output in the runner's stop-commands lines (src/cli/workflow-commands.ts), which
  // the tests of what it prints do not expect: the tests of that wrapping set it themselves.
  delete process.env.GITHUB_ACTIONS;
  buildDist();
}
