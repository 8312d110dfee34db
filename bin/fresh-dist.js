#!/usr/bin/env node
// prepare (run by `npm pack`, `npm publish` and an install from git): dist/ rebuilt from nothing,
// so no file of a module since removed from src/ is packed. It is built beside the current
// dist/ and put in its place only once the build succeeded: `npm pack --dry-run` in a checkout
// others are testing in leaves them a whole dist/ throughout (an `rm -r dist` before the build
// left none for its length), and a failed build leaves the old dist/ and exits non-zero saying
// which step failed.
//
// The build is staged in .dist-stage-<pid>/ at the root (git and biome ignore /.dist-*), not
// inside dist/: there another run's swap moved it away mid-build (its rolldown then found no
// config), and a run killed there left 12 MB that `npm pack --ignore-scripts` would pack. What
// a killed run leaves (.dist-stage-, .dist-fresh-, .dist-old-<pid>, dist/.fresh-<pid> of older
// versions) is removed by the next run once that pid is gone. Runs at once each build in their
// own stage; their swaps take turns under .dist-lock (the holder's pid in it), so each ends with
// a whole dist/, the last to swap's.
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
const STAGE = join(ROOT, `.dist-stage-${process.pid}`);
// rolldown.config.ts bundles `./dist/` of its own folder, and reads `./package.json` there.
const FRESH = join(STAGE, 'dist');
const LOCK = join(ROOT, '.dist-lock');
/** A swap is a few renames: a lock held longer than this is a holder stuck, not busy. */
const LOCK_WAIT_MS = 120_000;
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);

/** @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, another user's.
    return /** @type {NodeJS.ErrnoException} */ (e).code === 'EPERM';
  }
}

/** What runs killed before they cleaned up left, of pids that are gone (a live run's are its own). */
function sweep() {
  /** @type {[string, RegExp][]} */
  const places = [
    [ROOT, /^\.dist-(?:stage|fresh|old)-(\d+)$/],
    [DIST, /^\.fresh-(\d+)$/],
  ];
  for (const [dir, pattern] of places) {
    let names;
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = Number(pattern.exec(name)?.[1]);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !alive(pid))
        rmSync(join(dir, name), { recursive: true, force: true });
    }
  }
}

/** @param {number} ms */
function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Take .dist-lock, waiting while a live run holds it; one of a dead run is taken over. */
function lock() {
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(LOCK, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'EEXIST') throw e;
    }
    let holder = Number.NaN;
    let age = 0;
    try {
      holder = Number(readFileSync(LOCK, 'utf8') || Number.NaN);
      age = Date.now() - statSync(LOCK).mtimeMs;
    } catch {
      continue; // released meanwhile
    }
    // An empty file is a holder between creating and writing it, unless it stayed so (killed there).
    const dead = Number.isInteger(holder) && holder > 0 ? !alive(holder) : age > 5_000;
    if (dead) {
      rmSync(LOCK, { force: true });
      continue;
    }
    if (Date.now() > until) {
      rmSync(STAGE, { recursive: true, force: true });
      process.stderr.write(
        `wirecheck prepare: ${LOCK} was held by pid ${holder} for over ${LOCK_WAIT_MS / 1000} s; expected it released after a swap of dist/. dist/ is left as it was; remove the file if that process is not a build\n`,
      );
      process.exit(1);
    }
    sleep(50);
  }
}

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

sweep();
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

// Two renames, so dist/ is missing only between them, not for the length of a build; under the
// lock, so no other run's swap finds it missing there.
const outgoing = join(ROOT, `.dist-old-${process.pid}`);
lock();
try {
  try {
    renameSync(DIST, outgoing);
  } catch (e) {
    // No dist/ yet (a fresh clone): nothing to move aside.
    if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'ENOENT') throw e;
  }
  renameSync(FRESH, DIST);
} finally {
  rmSync(LOCK, { force: true });
}
rmSync(outgoing, { recursive: true, force: true });
rmSync(STAGE, { recursive: true, force: true });
