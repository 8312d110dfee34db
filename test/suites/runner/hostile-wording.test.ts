import { expect, test } from 'vitest';
import { CheckFailure } from '../../../src/harness/check.js';
import type { BashToolResult } from '../../../src/protocol/bash/index.js';
import { NO_OUTPUT } from '../../../src/suites/runner/checks/output.js';
import { TIMED_OUT } from '../../../src/suites/runner/checks/timeout.js';
import { expectMatches } from '../../../src/suites/runner/expect.js';
import { expectAssembledOutput } from '../../../src/suites/runner/output-rules.js';

// A runner under test may answer with text built to make the suite's wording patterns
// backtrack (a long run that almost matches): the verdict must come at once, or the event
// loop stalls and no timeout of the harness fires. No timing assertion: each test gets
// vitest's 5 s default, which a quadratic match of these inputs blows through many times.
const STALL_MS = 5_000;

function result(content: string): BashToolResult {
  return { type: 'tool_result', tool_use_id: 'toolu_hostile', content, is_error: true };
}

/** 80000 bytes of `yes`: over the limit, cut at 65536 bytes (on a line break). */
const FLOOD = 'y\n'.repeat(40_000);
const KEPT = FLOOD.slice(0, 65_536);

test(
  'a "64" followed by a long run of spaces after the cut is judged at once: not a limit note',
  () => {
    const content = `${KEPT}64${' '.repeat(150_000)}x`;
    expect(() => expectAssembledOutput(content, FLOOD, '', '`yes`', 'forbid', 'names-limit')).toThrow(
      /does not name the 64 KB limit/,
    );
  },
  STALL_MS,
);

test(
  'a limit note after a long run of spaces is still found, at once',
  () => {
    const content = `${KEPT}${' '.repeat(1_000_000)}\n[output truncated: the 64 KB limit was exceeded]`;
    expect(() => expectAssembledOutput(content, FLOOD, '', '`yes`')).not.toThrow();
  },
  STALL_MS,
);

test(
  '"exceed " repeated is judged at once: not a timeout text',
  () => {
    const hostile = result('exceed '.repeat(50_000));
    expect(() => expectMatches(hostile, TIMED_OUT, 'sleep 30', 'state that the command timed out')).toThrow(
      CheckFailure,
    );
  },
  STALL_MS,
);

test(
  '"exceed " repeated, then a time, is a timeout text, found at once',
  () => {
    const text = result(`${'exceed '.repeat(1_000_000)}2 seconds`);
    expect(() =>
      expectMatches(text, TIMED_OUT, 'sleep 30', 'state that the command timed out'),
    ).not.toThrow();
  },
  STALL_MS,
);

test(
  '"no " repeated is judged at once: not a no-output text',
  () => {
    const hostile = result('no '.repeat(100_000));
    expect(() => expectMatches(hostile, NO_OUTPUT, 'true', 'state that no output was produced')).toThrow(
      CheckFailure,
    );
  },
  STALL_MS,
);
