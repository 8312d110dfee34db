import { spawn } from 'node:child_process';
import { expect, test } from 'vitest';
import {
  canScanProcesses,
  groupLedByRunner,
  isMarkerProcess,
  newMarker,
  parseRealUid,
  parseStat,
  type Sighting,
  scanMarkers,
  sightingOf,
} from '../../../src/suites/runner/index.js';

test('a marker is a long sleep whose argument is unique to the case', () => {
  const a = newMarker(311);
  const b = newMarker(311);
  expect(a.command).toMatch(/^sleep 311\.000\d{12}$/);
  expect(a.arg).not.toBe(b.arg);
  expect(newMarker(0.5).command).toMatch(/^sleep 0\.500\d{12}$/);
});

test("the real uid is the first number of a status text's Uid line", () => {
  expect(parseRealUid('Name:\tsleep\nUid:\t65534\t0\t0\t0\nGid:\t0\t0\t0\t0\n')).toBe(65534);
  expect(parseRealUid('Name:\tsleep\n')).toBeUndefined();
});

const RUNNER_STDIO = { stdin: 'socket:[11]', stdout: 'socket:[12]' };
const sighting = (
  pid: number,
  pgid: number,
  leaderStdio?: { stdin?: string; stdout?: string },
): Sighting => ({
  pid,
  ppid: 1,
  pgid,
  sid: pgid,
  state: 'S',
  argv: ['sleep', '1'],
  uid: 1000,
  leader:
    leaderStdio === undefined
      ? undefined
      : { argv: ['python3', 'runner.py'], stdio: { stdin: leaderStdio.stdin, stdout: leaderStdio.stdout } },
});

test("a group two commands share, led by the process holding the runner's stdin and stdout, is the runner's", () => {
  const first = [sighting(101, 50, RUNNER_STDIO)];
  const second = [sighting(102, 50, RUNNER_STDIO)];
  expect(groupLedByRunner(first, second, RUNNER_STDIO)?.pgid).toBe(50);
});

test("a group of one command, or one led by a shell session the runner feeds, is not the runner's", () => {
  // A per-command shell that inherited the runner's stdin and stdout leads only its own command.
  expect(
    groupLedByRunner([sighting(101, 100, RUNNER_STDIO)], [sighting(103, 102, RUNNER_STDIO)], RUNNER_STDIO),
  ).toBeUndefined();
  // A persistent shell fed through a pipe of the runner's own.
  const shell = { stdin: 'pipe:[77]', stdout: 'pipe:[78]' };
  expect(
    groupLedByRunner([sighting(101, 60, shell)], [sighting(102, 60, shell)], RUNNER_STDIO),
  ).toBeUndefined();
  // A leader gone, or whose links could not be read (another user's process).
  expect(groupLedByRunner([sighting(101, 60)], [sighting(102, 60)], RUNNER_STDIO)).toBeUndefined();
  expect(
    groupLedByRunner([sighting(101, 60, {})], [sighting(102, 60, {})], {
      stdin: undefined,
      stdout: undefined,
    }),
  ).toBeUndefined();
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
  const child = spawn('sleep', [m.arg], { stdio: 'ignore', detached: true });
  try {
    let found = scanMarkers([m]);
    for (let i = 0; i < 50 && !found.has(m.arg); i++) {
      await new Promise((r) => setTimeout(r, 20));
      found = scanMarkers([m]);
    }
    expect(found.get(m.arg)?.map((p) => p.pid)).toEqual([child.pid]);
    // Detached: the sleep leads its own group, so the leader is the sleep itself.
    const seen = sightingOf(found.get(m.arg)![0]!);
    expect(seen.uid).toBe(process.getuid?.());
    expect(seen.pgid).toBe(child.pid);
    expect(seen.leader?.argv).toEqual(['sleep', m.arg]);
    expect(seen.leader?.stdio).toEqual({ stdin: '/dev/null', stdout: '/dev/null' });
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  expect(scanMarkers([m]).has(m.arg)).toBe(false);
});
