import type { CommandRun } from '../../../src/harness/run-command.js';
import type { JournalEntry } from '../../../src/mocks/messages/index.js';
import type { AgentCase } from '../../../src/suites/agent/cases.js';
import type { AgentCaseResult } from '../../../src/suites/agent/context.js';

/** A case result made up for a check's judgement: the agent exited `exitCode` after sending `requests`. */
export function fakeCaseResult(spec: AgentCase, requests: JournalEntry[], exitCode: number): AgentCaseResult {
  const run = {
    exitCode,
    signal: null,
    timedOut: false,
    stdout: '',
    stderr: '',
    durationMs: 5,
  } as CommandRun;
  return { spec, run, requests, otherOperations: [], served: [], workdir: '/nowhere' };
}
