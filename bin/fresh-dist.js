#!/usr/bin/env node
// prepare (run by `npm pack`, `npm publish` and an install from git): dist/ rebuilt from nothing,
// so no file of a module since removed from src/ is packed. It is built beside the current
// dist/ (in dist/.fresh-<pid>/, which git and biome ignore with dist/) and put in its place
// only once the build succeeded: `npm pack --dry-run` in a checkout others are testing in
// leaves them a whole dist/ throughout (an `rm -r dist` before the build left none for its
// length), and a failed build leaves the old dist/ and exits non-zero saying which step failed.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
const STAGE = join(DIST, `.fresh-${process.pid}`);
// rolldown.config.ts bundles `./dist/` of its own folder, and reads `./package.json` there.
const FRESH = join(STAGE, 'dist');
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);

/** @param {string} what @param {string} command @param {string[]} args */
function step(what, command, args) {
  try {
    execFileSync(command, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (e) {
    rmSync(STAGE, { recursive: true, force: true });
    const status = /** @type {{ status?: number | null }} */ (e).status;
    process.stderr.write(
      `wirecheck prepare: ${what} failed (exit ${status ?? 'by a signal'}); dist/ is left as it was, not replaced by a partial build\n`,
    );
    process.exit(1);
  }
}

mkdirSync(STAGE, { recursive: true });
copyFileSync(join(ROOT, 'package.json'), join(STAGE, 'package.json'));
copyFileSync(join(ROOT, 'rolldown.config.ts'), join(STAGE, 'rolldown.config.ts'));
step('tsc -p tsconfig.build.json', bin('tsc'), [
  '-p',
  join(ROOT, 'tsconfig.build.json'),
  '--outDir',
  FRESH,
  '--tsBuildInfoFile',
  join(FRESH, '.tsbuildinfo'),
]);
step('rolldown -c rolldown.config.ts', bin('rolldown'), ['-c', join(STAGE, 'rolldown.config.ts')]);
// Its paths are relative to where it was written: moved, it would mislead the next incremental build.
rmSync(join(FRESH, '.tsbuildinfo'), { force: true });

// Two renames, so dist/ is missing only between them, not for the length of a build.
const incoming = join(ROOT, `.dist-fresh-${process.pid}`);
const outgoing = join(ROOT, `.dist-old-${process.pid}`);
renameSync(FRESH, incoming);
renameSync(DIST, outgoing);
renameSync(incoming, DIST);
rmSync(outgoing, { recursive: true, force: true });
