import { spawn } from 'node:child_process';
import { expect, test } from 'vitest';
import {
  canScanProcesses,
  isMarkerProcess,
  newMarker,
  parseStat,
  scanMarkers,
} from '../../../src/suites/runner/index.js';

test('a marker is a long sleep whose argument is unique to the case', () => {
  const a = newMarker(311);
  const b = newMarker(311);
  expect(a.command).toMatch(/^sleep 311\.000\d{12}$/);
  expect(a.arg).not.toBe(b.arg);
});

test('the stat fields are read after the last parenthesis, whatever the command name holds', () => {
  const stat = '4242 (we (ird) name) S 17 4200 4100 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0';
  expect(parseStat(stat)).toEqual({ pid: 4242, state: 'S', ppid: 17, pgid: 4200, sid: 4100 });
  expect(parseStat('garbage')).toBeUndefined();
});

test('only the sleep itself carries a marker, not the shell whose command line mentions it', () => {
  const m = newMarker(30);
  expect(isMarkerProcess(['sleep', m.arg], m)).toBe(true);
  expect(isMarkerProcess(['/usr/bin/sleep', m.arg], m)).toBe(true);
  expect(isMarkerProcess(['bash', '-c', `${m.command} & wait`], m)).toBe(false);
  expect(isMarkerProcess(['sleep', '30'], m)).toBe(false);
});

test('a live marked process is found in /proc, and no longer once it is gone', async () => {
  const m = newMarker(30);
  if (!canScanProcesses()) {
    // Without /proc (macOS) nothing is ever found: the process checks skip.
    expect(scanMarkers([m]).size).toBe(0);
    return;
  }
  const child = spawn('sleep', [m.arg], { stdio: 'ignore' });
  try {
    let found = scanMarkers([m]);
    for (let i = 0; i < 50 && !found.has(m.arg); i++) {
      await new Promise((r) => setTimeout(r, 20));
      found = scanMarkers([m]);
    }
    expect(found.get(m.arg)?.map((p) => p.pid)).toEqual([child.pid]);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  expect(scanMarkers([m]).has(m.arg)).toBe(false);
});
