import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { nodeVersionProblem, requiredNode } from '../../bin/node-version.js';

const ROOT = resolve(import.meta.dirname, '../..');

interface Manifest {
  engines?: { node?: string };
  dependencies?: Record<string, string>;
}
const manifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** Makes the program it preloads into believe it runs on Node.js 20.20.2. */
const PRETEND_NODE_20 =
  'data:text/javascript,Object.defineProperty(process, "versions", { value: { ...process.versions, node: "20.20.2" } });';

describe('the Node.js version check', () => {
  test('wants the version package.json states in engines.node', () => {
    expect(manifest(ROOT).engines?.node).toBe('>=22.12');
    expect(requiredNode()).toEqual([22, 12]);
  });

  test('asks at least what every runtime dependency asks for', () => {
    const [major, minor] = requiredNode();
    for (const name of Object.keys(manifest(ROOT).dependencies ?? {})) {
      const wanted = /(\d+)\.(\d+)/.exec(manifest(join(ROOT, 'node_modules', name)).engines?.node ?? '0.0');
      const [wantMajor, wantMinor] = [Number(wanted?.[1]), Number(wanted?.[2])];
      expect(wantMajor < major || (wantMajor === major && wantMinor <= minor), name).toBe(true);
    }
  });

  test('passes the supported versions and names the found and the needed one otherwise', () => {
    for (const ok of ['22.12.0', '22.20.1', '24.21.0', '26.0.0'])
      expect(nodeVersionProblem(ok)).toBeUndefined();
    for (const old of ['22.11.0', '20.20.2', '18.0.0']) {
      const problem = nodeVersionProblem(old, '/usr/bin/node');
      expect(problem).toContain(
        `wirecheck needs Node.js >= 22.12, but this is Node.js ${old} (/usr/bin/node).`,
      );
      expect(problem).toContain('nvm install 24');
      expect(problem).toContain('actions/setup-node');
    }
  });

  test('in this checkout it points at the Node.js 24 of the devDependency `node`', () => {
    expect(nodeVersionProblem('20.20.2')).toContain(join(ROOT, 'node_modules/.bin/node'));
  });

  test.each(['wirecheck.js', 'fuzz.js', 'bench.js'])(
    'bin/%s on an old Node.js exits 2 with the message before loading anything of dist/',
    (bin) => {
      const run = spawnSync(
        process.execPath,
        ['--import', PRETEND_NODE_20, join(ROOT, 'bin', bin), '--help'],
        {
          encoding: 'utf8',
          timeout: 20_000,
        },
      );
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^wirecheck needs Node\.js >= 22\.12, but this is Node\.js 20\.20\.2 \(/);
    },
  );
});
