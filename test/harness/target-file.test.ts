import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { readTargetFile } from '../../src/harness/target-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wirecheck-target-file-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a regular file is read whole when within the limit', () => {
  writeFileSync(join(dir, 'f'), 'cleaned-up\n');
  expect(readTargetFile(join(dir, 'f'), 64)).toEqual({ kind: 'text', text: 'cleaned-up\n', cut: false });
});

test('a file past the limit is cut there, and says so; one exactly at it is not cut', () => {
  writeFileSync(join(dir, 'big'), 'x'.repeat(100));
  expect(readTargetFile(join(dir, 'big'), 10)).toEqual({ kind: 'text', text: 'x'.repeat(10), cut: true });
  expect(readTargetFile(join(dir, 'big'), 100)).toEqual({ kind: 'text', text: 'x'.repeat(100), cut: false });
});

test('a missing file is absent', () => {
  expect(readTargetFile(join(dir, 'none'), 64)).toEqual({ kind: 'absent' });
});

// A target may leave a FIFO where the harness reads a file: opening it blocking would freeze
// the harness's only thread until a writer came, and every writer is gone by then.
test('a FIFO is not read (and reading does not block)', () => {
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  expect(readTargetFile(join(dir, 'fifo'), 64)).toEqual({ kind: 'not-a-file', what: 'a FIFO' });
});

// A link to /dev/zero would be read without end.
test('a symbolic link is not followed, to /dev/zero or anywhere', () => {
  symlinkSync('/dev/zero', join(dir, 'zero'));
  expect(readTargetFile(join(dir, 'zero'), 64)).toEqual({ kind: 'not-a-file', what: 'a symbolic link' });
});

test('a directory is not a file', () => {
  mkdirSync(join(dir, 'd'));
  expect(readTargetFile(join(dir, 'd'), 64)).toEqual({ kind: 'not-a-file', what: 'a directory' });
});
