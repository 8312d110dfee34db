import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { PACKAGE_ROOT, PACKAGE_VERSION, WIRECHECK_BIN } from '../src/package-root.js';

const REPO = resolve(import.meta.dirname, '..');
let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

test('from src/ the package root is the repository, and the bin is in it', () => {
  expect(PACKAGE_ROOT).toBe(REPO);
  expect(WIRECHECK_BIN).toBe(join(REPO, 'bin', 'wirecheck.js'));
});

test('the built module finds the package from any depth, past the package.json of another package', async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'wc-root-')));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'wirecheck', version: '9.8.7', type: 'module' }),
  );
  // A folder deeper than dist/ ever is, under a package.json that is not wirecheck's.
  const deep = join(dir, 'dist', 'bundle', 'more', 'deeper');
  mkdirSync(deep, { recursive: true });
  writeFileSync(
    join(dir, 'dist', 'bundle', 'package.json'),
    JSON.stringify({ name: 'other', type: 'module' }),
  );
  copyFileSync(join(REPO, 'dist', 'package-root.js'), join(deep, 'package-root.js'));
  const moved = (await import(
    pathToFileURL(join(deep, 'package-root.js')).href
  )) as typeof import('../src/package-root.js');
  expect(moved.PACKAGE_ROOT).toBe(dir);
  expect(moved.WIRECHECK_BIN).toBe(join(dir, 'bin', 'wirecheck.js'));
  expect(moved.PACKAGE_VERSION).toBe('9.8.7');
});

test('the version comes from that package.json, and one without a version is named', async () => {
  const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
  expect(PACKAGE_VERSION).toBe(version);
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'wc-root-')));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'wirecheck', type: 'module' }));
  mkdirSync(join(dir, 'dist'));
  copyFileSync(join(REPO, 'dist', 'package-root.js'), join(dir, 'dist', 'package-root.js'));
  await expect(import(pathToFileURL(join(dir, 'dist', 'package-root.js')).href)).rejects.toThrow(
    `wirecheck's package.json (${join(dir, 'package.json')}) has no version string`,
  );
});
