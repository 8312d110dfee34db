import type { JournalEntry } from '../../../src/mocks/messages/index.js';
import type { AgentCase } from '../../../src/suites/agent/cases.js';
import type { AgentCaseResult } from '../../../src/suites/agent/context.js';
import { NO_STDERR_LINES } from '../../../src/suites/agent/operator-lines.js';
import { fakeCommandRun } from '../journaled-request.js';

/** A case result made up for a check's judgement: the agent exited `exitCode` after sending `requests`. */
export function fakeCaseResult(spec: AgentCase, requests: JournalEntry[], exitCode: number): AgentCaseResult {
  return {
    spec,
    run: fakeCommandRun(exitCode),
    requests,
    otherOperations: [],
    served: [],
    workdir: '/nowhere',
    stderrLines: NO_STDERR_LINES,
  };
}
