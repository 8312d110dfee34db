import { execFile, spawnSync } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

/**
 * `prepare` (run by `npm pack`, even `--dry-run`, in the checkout it packs, where others may be
 * running the tests off dist/) builds a fresh dist/ beside the current one and swaps it in only
 * once the build succeeded. The real build is exercised by the install test (test/package/
 * install.test.ts, a stale file is not packed); here the swap is run with stand-ins for tsc and
 * rolldown, so each case costs a second rather than a full build.
 */
const ROOT = resolve(import.meta.dirname, '../..');

let work: string;

/** A stand-in for a build tool: writes the files of a build where the real one would, or fails. */
const TSC = `#!/usr/bin/env node
const fs = require('node:fs'), path = require('node:path');
if (fs.existsSync(path.join(process.cwd(), 'tsc-fails'))) { console.error('error TS2322'); process.exit(2); }
// A build still going when another run swaps its own in (the file only the old dist/ holds is gone).
if (process.env.STAND_IN_TSC_OUTLASTS === '1') {
  const until = Date.now() + 20000;
  while (fs.existsSync(path.join(process.cwd(), 'dist', 'removed-module.js')) && Date.now() < until)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
}
const args = process.argv.slice(2);
const outDir = args[args.indexOf('--outDir') + 1];
const info = args[args.indexOf('--tsBuildInfoFile') + 1];
fs.mkdirSync(path.join(outDir, 'testing'), { recursive: true });
for (const f of ['index.js', 'index.d.ts', 'testing/vitest.js']) fs.writeFileSync(path.join(outDir, f), 'export {};\\n');
fs.writeFileSync(info, '{}');
`;
const ROLLDOWN = `#!/usr/bin/env node
const fs = require('node:fs'), path = require('node:path');
if (fs.existsSync(path.join(process.cwd(), 'rolldown-fails'))) { console.error('rolldown: bad input'); process.exit(1); }
const config = process.argv[process.argv.indexOf('-c') + 1];
// As the real one: a config moved away mid-build is a failed build.
if (!fs.existsSync(config)) { console.error('Cannot resolve entry module ' + config); process.exit(1); }
const bundle = path.join(path.dirname(config), 'dist', 'bundle');
fs.mkdirSync(bundle, { recursive: true });
fs.writeFileSync(path.join(bundle, 'cli-main.js'), 'export {};\\n');
`;

/** A checkout with bin/fresh-dist.js, stand-in tools, and a dist/ holding a file no source makes. */
async function checkout(name: string, fails?: 'tsc-fails' | 'rolldown-fails'): Promise<string> {
  const dir = join(work, name);
  await mkdir(join(dir, 'dist'), { recursive: true });
  await mkdir(join(dir, 'node_modules', '.bin'), { recursive: true });
  await cp(join(ROOT, 'bin', 'fresh-dist.js'), join(dir, 'bin', 'fresh-dist.js'));
  for (const file of ['package.json', 'rolldown.config.ts']) await cp(join(ROOT, file), join(dir, file));
  for (const [tool, text] of [
    ['tsc', TSC],
    ['rolldown', ROLLDOWN],
  ] as const) {
    await writeFile(join(dir, 'node_modules', '.bin', tool), text);
    await chmod(join(dir, 'node_modules', '.bin', tool), 0o755);
  }
  await writeFile(join(dir, 'dist', 'removed-module.js'), 'export {};\n');
  if (fails !== undefined) await writeFile(join(dir, fails), '');
  return dir;
}

function freshDist(cwd: string, outlast = false): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const env = { ...process.env, STAND_IN_TSC_OUTLASTS: outlast ? '1' : '0' };
    execFile(
      process.execPath,
      ['bin/fresh-dist.js'],
      { cwd, env, timeout: 60_000 },
      (error, _stdout, stderr) => {
        done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stderr });
      },
    );
  });
}

/** The files of a whole build (the stand-ins'), and nothing of a staging. */
async function expectWholeDist(dir: string): Promise<void> {
  const dist = await readdir(join(dir, 'dist'), { recursive: true });
  expect(dist).not.toContain('removed-module.js');
  for (const file of ['index.js', 'index.d.ts', 'testing/vitest.js', 'bundle/cli-main.js'])
    expect(dist, file).toContain(file);
  expect(dist.filter((f) => f.startsWith('.'))).toEqual([]);
}

/** The pid of a process that has ended. */
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ['-e', '0']);
  if (pid === undefined) throw new Error('expected a pid from spawnSync of node -e 0, got none');
  return pid;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'wirecheck-prepack-'));
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('prepare: a fresh dist/, swapped in whole', () => {
  test('package.json builds on prepare with bin/fresh-dist.js, and nothing removes dist/ before it', async () => {
    const { scripts } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.prepare).toBe('node bin/fresh-dist.js');
    expect(scripts.prepack).toBeUndefined();
  });

  test('the stale file is gone, the build is whole, nothing of the staging is left', async () => {
    const dir = await checkout('ok');
    const result = await freshDist(dir);
    expect(result.code, result.stderr).toBe(0);
    const dist = await readdir(join(dir, 'dist'), { recursive: true });
    expect(dist).not.toContain('removed-module.js');
    for (const file of ['index.js', 'index.d.ts', 'testing/vitest.js', 'bundle/cli-main.js'])
      expect(dist, file).toContain(file);
    expect(dist.filter((f) => f.startsWith('.'))).toEqual([]);
    expect((await readdir(dir)).filter((f) => f.startsWith('.dist-'))).toEqual([]);
  });

  test.each([
    ['tsc-fails', 'tsc -p tsconfig.build.json'],
    ['rolldown-fails', 'rolldown -c rolldown.config.ts'],
  ] as const)('%s: dist/ is left as it was and the step is named', async (fails, step) => {
    const dir = await checkout(fails, fails);
    const result = await freshDist(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`wirecheck prepare: ${step} failed`);
    expect(result.stderr).toContain('dist/ is left as it was');
    expect(await readdir(join(dir, 'dist'))).toEqual(['removed-module.js']);
    expect((await readdir(dir)).filter((f) => f.startsWith('.dist-'))).toEqual([]);
  });

  test("two runs at once both end 0 with a whole dist/, the one still building not disturbed by the other's swap", async () => {
    const dir = await checkout('overlap');
    // The second's build outlasts the first's whole run, whose swap once moved the second's staging away.
    const [first, second] = await Promise.all([freshDist(dir), freshDist(dir, true)]);
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    await expectWholeDist(dir);
    expect((await readdir(dir)).filter((f) => f.startsWith('.dist-'))).toEqual([]);
  });

  test('what a run killed mid-build left is removed when its pid is gone, kept while it runs', async () => {
    const dir = await checkout('stale');
    const dead = deadPid();
    const left = [`.dist-stage-${dead}`, `.dist-old-${dead}`, `.dist-fresh-${dead}`];
    for (const name of left) await mkdir(join(dir, name, 'dist'), { recursive: true });
    // An older prepare staged inside dist/ (there it would be packed).
    await mkdir(join(dir, 'dist', `.fresh-${dead}`, 'dist'), { recursive: true });
    // A lock its holder never released: taken over, not waited for.
    await writeFile(join(dir, '.dist-lock'), String(dead));
    // This test's own pid stands for a run still building.
    const live = `.dist-stage-${process.pid}`;
    await mkdir(join(dir, live, 'dist'), { recursive: true });
    const result = await freshDist(dir);
    expect(result.code, result.stderr).toBe(0);
    await expectWholeDist(dir);
    expect((await readdir(dir)).filter((f) => f.startsWith('.dist-'))).toEqual([live]);
  });

  test('a run whose build is done waits for the swap lock a live run holds, then swaps', async () => {
    const dir = await checkout('locked');
    // This test's own pid stands for a run in the middle of its swap.
    await writeFile(join(dir, '.dist-lock'), String(process.pid));
    const running = freshDist(dir);
    const built = async (): Promise<boolean> => {
      for (const name of await readdir(dir)) {
        if (!name.startsWith('.dist-stage-')) continue;
        const files = await readdir(join(dir, name, 'dist'), { recursive: true }).catch((): string[] => []);
        if (files.includes('bundle/cli-main.js') && !files.includes('.tsbuildinfo')) return true;
      }
      return false;
    };
    const until = Date.now() + 20_000;
    while (!(await built()) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(await built(), 'the run built its stage').toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(await readdir(join(dir, 'dist')), 'dist/ swapped while the lock was held').toEqual([
      'removed-module.js',
    ]);
    await rm(join(dir, '.dist-lock'));
    const result = await running;
    expect(result.code, result.stderr).toBe(0);
    await expectWholeDist(dir);
    expect((await readdir(dir)).filter((f) => f.startsWith('.dist-'))).toEqual([]);
  });
});
