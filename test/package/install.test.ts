import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

/**
 * wirecheck as a user gets it: `npm pack` of a copy of the sources (prepare builds a fresh
 * dist/ there, so the tests' own dist/ is never rebuilt under them), installed into a new
 * project with the README's `npm install --save-dev <tarball>`, then run there with npx.
 *
 * The install runs `--offline`: no network, and a clear ENOTCACHED if something is missing.
 * `npm ci` fills the npm cache with the tarballs of wirecheck's dependencies but not with the
 * registry's metadata about them, which a plain install would ask for; so the new project
 * starts with a lockfile holding wirecheck's runtime dependencies at the versions of
 * wirecheck's own package-lock.json, and npm takes them from the cache.
 */
const ROOT = resolve(import.meta.dirname, '../..');
/** What `npm pack` needs of the sources: the build inputs and what `files` ships. */
const SOURCES = [
  'package.json',
  'package-lock.json',
  'LICENSE',
  'tsconfig.json',
  'tsconfig.build.json',
  'rolldown.config.ts',
  'README.md',
  'src',
  'bin',
  'fixtures',
  'docs',
  'examples',
];

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let work: string;
let project: string;
let tarball: string;
let packed: string[];

/**
 * The environment of a command run in the new project: this Node.js first on PATH (so the
 * installed package runs on the Node that runs the tests), and none of the variables that an
 * outer `npm test` sets to describe itself (its package, its script, its prefix).
 */
function projectEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(package_|lifecycle_|command$|execpath$|node_execpath$|config_local_prefix$)/.test(key))
      continue;
    if (key === 'INIT_CWD') continue;
    env[key] = value;
  }
  env.PATH = [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);
  return env;
}

function run(command: string, args: readonly string[], cwd: string, timeoutMs: number): Promise<Run> {
  return new Promise((resolveRun) => {
    execFile(
      command,
      args,
      { cwd, env: projectEnv(), timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolveRun({ code, stdout, stderr });
      },
    );
  });
}

function explain(what: string, result: Run): string {
  return `${what} exited ${result.code}\n--- stdout\n${result.stdout.slice(-4000)}\n--- stderr\n${result.stderr.slice(-4000)}`;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

interface LockEntry {
  readonly dev?: boolean;
  readonly devOptional?: boolean;
  readonly [field: string]: unknown;
}

/** A lockfile of a project with nothing but wirecheck's runtime dependencies, as wirecheck locks them. */
async function seededLockfile(root: { name: string; version: string }): Promise<unknown> {
  const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const packages: Record<string, unknown> = { '': root };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith('node_modules/') || entry.dev === true) continue;
    const { devOptional: _, ...rest } = entry;
    packages[path] = { ...rest, dev: true };
  }
  return { ...root, lockfileVersion: 3, requires: true, packages };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'wirecheck-install-'));
  const source = join(work, 'wirecheck');
  await mkdir(source);
  for (const name of SOURCES) await cp(join(ROOT, name), join(source, name), { recursive: true });
  await symlink(join(ROOT, 'node_modules'), join(source, 'node_modules'));
  // A module since removed from src/ whose build output is still in dist/: prepare rebuilds
  // dist/ from nothing, so it must not be packed.
  await mkdir(join(source, 'dist'), { recursive: true });
  await writeFile(join(source, 'dist', 'removed-module.js'), 'export {};\n');
  // Hang catches, not speed goals: a full build under a loaded CI machine has taken over 120 s.
  const pack = await run('npm', ['pack', '--json', '--pack-destination', work], source, 240_000);
  if (pack.code !== 0) throw new Error(explain('npm pack', pack));
  const [info] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
  }[];
  if (info === undefined) throw new Error(explain('npm pack printed no package', pack));
  tarball = join(work, info.filename);
  packed = info.files.map((f) => f.path);

  project = join(work, 'project');
  await mkdir(project);
  const name = { name: 'my-project', version: '1.0.0' };
  await writeFile(join(project, 'package.json'), `${JSON.stringify({ ...name, private: true }, null, 2)}\n`);
  await writeFile(join(project, 'package-lock.json'), JSON.stringify(await seededLockfile(name), null, 2));
  const install = await run(
    'npm',
    ['install', '--save-dev', '--offline', '--no-audit', '--no-fund', tarball],
    project,
    180_000,
  );
  if (install.code !== 0) throw new Error(explain('npm install', install));
}, 480_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  test('holds the built program, its types, fixtures and docs, and none of the sources, tests or dev tools', () => {
    for (const file of [
      'package.json',
      'README.md',
      'LICENSE',
      'bin/wirecheck.js',
      'bin/node-version.js',
      'bin/warm-relay.pl',
      'dist/cli/main.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/testing/vitest.js',
      'dist/bundle/target-main.js',
      'dist/bundle/cli-main.js',
      'dist/bundle/mock-tools-stdio.js',
      'fixtures/messages/01-plain-text.json',
      'docs/checks.md',
    ]) {
      expect(packed, file).toContain(file);
    }
    const unwanted = packed.filter((f) =>
      /^(src|test|node_modules|reports)\/|^dist\/(bench|fuzz)\/|\.map$|^dist\/\.|^\.dist-|removed-module|^bin\/(fuzz|bench|fresh-dist)\.js$/.test(
        f,
      ),
    );
    expect(unwanted).toEqual([]);
  });

  test('installs as a dev dependency from the tarball, with the bin linked', async () => {
    const manifest = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as {
      devDependencies?: Record<string, string>;
    };
    expect(manifest.devDependencies?.wirecheck).toMatch(/^file:.*wirecheck-\d+\.\d+\.\d+\.tgz$/);
    expect(await readdir(join(project, 'node_modules/.bin'))).toContain('wirecheck');
  });

  test('imports at run time nothing but Node built-ins and its dependencies (vitest only in wirecheck/vitest, a peer)', async () => {
    const installed = join(project, 'node_modules/wirecheck');
    const { dependencies = {} } = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    const missing: string[] = [];
    const imported = new Set<string>();
    for (const file of await filesUnder(join(installed, 'dist'))) {
      if (!file.endsWith('.js')) continue;
      const text = await readFile(file, 'utf8');
      const specifiers = [
        ...text.matchAll(/^(?:import|export)\b[^;'"]*?\bfrom\s*'([^']+)'/gm),
        ...text.matchAll(/^import\s*'([^']+)'/gm),
        ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
      ]
        .map((m) => m[1] ?? '')
        .filter((specifier) => !specifier.startsWith('.'));
      for (const specifier of specifiers) {
        if (isBuiltin(specifier)) continue;
        const name = specifier
          .split('/')
          .slice(0, specifier.startsWith('@') ? 2 : 1)
          .join('/');
        const where = relative(installed, file);
        imported.add(name);
        if (name === 'vitest' && where === 'dist/testing/vitest.js') continue;
        if (!(name in dependencies)) missing.push(`${where}: ${specifier}`);
      }
    }
    // The scan sees the imports (every dependency is used), and none of them is missing.
    expect([...imported].sort()).toEqual([...Object.keys(dependencies), 'vitest'].sort());
    expect(missing).toEqual([]);
  });

  test('`npx wirecheck list --json` there lists the checks of every suite', async () => {
    const list = await run('npx', ['wirecheck', 'list', '--json'], project, 60_000);
    expect(list.code, explain('npx wirecheck list --json', list)).toBe(0);
    const suites = new Set((JSON.parse(list.stdout) as { suite: string }[]).map((check) => check.suite));
    expect([...suites].sort()).toEqual([
      'agent',
      'messages-client',
      'messages-service',
      'runner',
      'tool-client',
      'tool-server',
    ]);
  }, 60_000);

  test('`npx wirecheck test tool-server --stdio "npx wirecheck serve tools --transport stdio"` there passes', async () => {
    const reports = join(work, 'reports');
    const suite = await run(
      'npx',
      [
        'wirecheck',
        'test',
        'tool-server',
        '--stdio',
        'npx wirecheck serve tools --transport stdio',
        '--seed',
        '1',
        '--report-dir',
        reports,
      ],
      project,
      120_000,
    );
    expect(suite.code, explain('npx wirecheck test tool-server', suite)).toBe(0);
    const results = JSON.parse(await readFile(join(reports, 'results.json'), 'utf8')) as {
      summary: { passed: number; failed: number };
    };
    expect(results.summary.failed).toBe(0);
    expect(results.summary.passed).toBeGreaterThan(10);
  }, 120_000);

  test("the project's own code imports 'wirecheck' and 'wirecheck/vitest' resolves to the package", async () => {
    const script = [
      "const api = await import('wirecheck');",
      "const vitestEntry = import.meta.resolve('wirecheck/vitest');",
      'console.log(JSON.stringify({ runSuite: typeof api.runSuite, vitestEntry }));',
    ].join('\n');
    const result = await run(process.execPath, ['--input-type=module', '--eval', script], project, 30_000);
    expect(result.code, explain('node --eval', result)).toBe(0);
    const printed = JSON.parse(result.stdout) as { runSuite: string; vitestEntry: string };
    expect(printed.runSuite).toBe('function');
    expect(printed.vitestEntry).toMatch(/\/node_modules\/wirecheck\/dist\/testing\/vitest\.js$/);
  });
});
