import { toolUse } from '../../../src/suites/runner/lines.js';
import type { SessionRun } from '../../../src/suites/runner/session.js';
import { warmUpLine } from '../../../src/suites/runner/timing.js';

/** A timed session as the harness records it: the warm-up line, then `sleep 30` with a timeout. */
export interface TimedRunOptions {
  readonly seconds: number;
  /** When the warm-up answer arrived (ms after the spawn), in read 1. */
  readonly warmUpAtMs: number;
  /** When the timed-out answer arrived and in which read of stdout; left out, it never came. */
  readonly timed?: { readonly atMs: number; readonly read: number };
  readonly lagMs: number;
  /** Marked processes seen in /proc, from 150 ms to 1100 ms after the spawn. */
  readonly seenArgs?: readonly string[];
}

export function timedSessionRun(o: TimedRunOptions): SessionRun {
  const lines = [warmUpLine(), toolUse('sleep 30')];
  const answer = (i: number, content: string, isError: boolean) =>
    JSON.stringify({ type: 'tool_result', tool_use_id: lines[i]!.id, content, is_error: isError });
  const outputs = [{ text: answer(0, '(no output; exit code 0)', false), atMs: o.warmUpAtMs, read: 1 }];
  if (o.timed !== undefined) {
    outputs.push({
      text: answer(1, `Command timed out after ${o.seconds} seconds`, true),
      atMs: o.timed.atMs,
      read: o.timed.read,
    });
  }
  const seen = o.seenArgs ?? [];
  const sighting = {
    pid: 7,
    ppid: 1,
    pgid: 7,
    sid: 1,
    state: 'S',
    argv: ['sleep'],
    uid: 1000,
    leader: undefined,
  };
  return sessionRunOf({
    spec: { lines, timeoutS: o.seconds, budgetMs: 60_000 },
    outputs,
    seen: new Map(seen.map((a) => [a, [sighting]])),
    firstSeenMs: new Map(seen.map((a) => [a, 150])),
    lastSeenMs: new Map(seen.map((a) => [a, 1100])),
    harnessLagMs: o.lagMs,
  });
}

/** A session that ran `spec` and printed `outputs`: the runner exited 0 on end of input, nothing else seen. */
export function sessionRunOf(fields: Pick<SessionRun, 'spec' | 'outputs'> & Partial<SessionRun>): SessionRun {
  return {
    workdir: '/nonexistent',
    droppedLines: 0,
    runnerPgid: 1,
    runnerGroups: new Set([1]),
    runnerStdio: undefined,
    exitedOnEof: true,
    exitCode: 0,
    exitSignal: null,
    budgetExceeded: false,
    stderr: '',
    seen: new Map(),
    firstSeenMs: new Map(),
    lastSeenMs: new Map(),
    leftovers: new Map(),
    survivors: [],
    durationMs: 0,
    harnessLagMs: 0,
    ...fields,
  };
}
