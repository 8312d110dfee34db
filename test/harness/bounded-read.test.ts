import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { BASELINE_MAX_BYTES, readBaseline } from '../../src/harness/baseline.js';
import { readBounded } from '../../src/harness/bounded-read.js';
import { WirecheckError } from '../../src/harness/errors.js';

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-bounded-read-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A FIFO with `text` (`times` over) written into it by another process after `delayMs`, as `<(...)` of a shell gives. */
async function fifoWriting(text: string, delayMs: number, times = 1): Promise<string> {
  const fifo = join(await tempDir(), 'baseline.fifo');
  execFileSync('mkfifo', [fifo]);
  const script = `setTimeout(() => require('fs').writeFileSync(process.argv[1], process.argv[2].repeat(Number(process.argv[3]))), ${delayMs})`;
  const child = spawn(process.execPath, ['-e', script, fifo, text, String(times)], { stdio: 'ignore' });
  cleanup.push(() => {
    child.kill();
  });
  return fifo;
}

async function baselineError(path: string): Promise<string> {
  const error = await readBaseline(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WirecheckError);
  expect((error as WirecheckError).code).toBe('WC_BASELINE');
  return (error as Error).message;
}

describe('readBounded', () => {
  test('reads a regular file whole when it is within the cap, and refuses a larger one unread', async () => {
    const file = join(await tempDir(), 'a.txt');
    await writeFile(file, 'twelve bytes');
    expect(await readBounded(file, { maxBytes: 12 })).toEqual({ kind: 'text', text: 'twelve bytes' });
    expect(await readBounded(file, { maxBytes: 11 })).toEqual({ kind: 'too-large', bytes: 12 });
  });

  test('refuses a device and a directory, and a FIFO unless pipes are allowed', async () => {
    expect(await readBounded('/dev/zero', { maxBytes: 10 })).toEqual({
      kind: 'not-a-file',
      what: 'a device',
    });
    const dir = await tempDir();
    expect(await readBounded(dir, { maxBytes: 10 })).toEqual({ kind: 'not-a-file', what: 'a directory' });
    const fifo = join(dir, 'f');
    execFileSync('mkfifo', [fifo]);
    expect(await readBounded(fifo, { maxBytes: 10 })).toEqual({ kind: 'not-a-file', what: 'a FIFO' });
  });
});

describe('a baseline given as a pipe', () => {
  test('is read once its writer closes it', async () => {
    const fifo = await fifoWriting('demo:demo.a.fail  known (T-1)\n', 100);
    const baseline = await readBaseline(fifo);
    expect(baseline.entries).toMatchObject([{ suite: 'demo', id: 'demo.a.fail', reason: 'known (T-1)' }]);
  });

  test('whose writer never comes is refused at its deadline', async () => {
    const fifo = join(await tempDir(), 'silent.fifo');
    execFileSync('mkfifo', [fifo]);
    const read = await readBounded(fifo, { maxBytes: 100, pipeDeadlineMs: 200 });
    expect(read).toEqual({ kind: 'timed-out', afterMs: 200 });
  });

  test('past the cap is refused', async () => {
    const fifo = await fifoWriting('#', 0, BASELINE_MAX_BYTES + 10);
    expect(await baselineError(fifo)).toMatch(
      new RegExp(
        `^cannot read the baseline file ${fifo}: it is at least 1 MiB, more than the 1 MiB a baseline may have$`,
      ),
    );
  });
});

describe('a baseline that is neither a file nor a pipe', () => {
  test('a link to /dev/zero is refused, not read for ever', async () => {
    const link = join(await tempDir(), 'baseline.txt');
    execFileSync('ln', ['-s', '/dev/zero', link]);
    expect(await baselineError(link)).toBe(
      `cannot read the baseline file ${link}: expected a regular file or a pipe, found a device`,
    );
  });
});
