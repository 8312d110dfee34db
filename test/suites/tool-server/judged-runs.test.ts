import { expect, test } from 'vitest';
import { createToolServerSuite } from '../../../src/suites/tool-server/index.js';
import { runAgainst, serverScript, stdioTarget } from './helpers.js';

// The generated-arguments property stops calling at a wall-clock limit: the cases after it are
// not judged, and the result says how many were, instead of claiming every run it was given.

test('a property cut by its time limit reports the cases it judged as its runs', async () => {
  const suite = createToolServerSuite({ maxCalls: 12, modelRuns: 2, generatedCallsMs: 1500, replyMs: 1500 });
  const result = await runAgainst(
    stdioTarget(`${serverScript('slow-calls-200')} --transport stdio`, 'all'),
    { only: ['tool-server.tools.generated-arguments'], runs: 12 },
    suite,
  );
  const check = result.checks.find((c) => c.id === 'tool-server.tools.generated-arguments')!;
  expect(check.status).toBe('pass');
  expect(check.runs).toBeGreaterThan(0);
  expect(check.runs).toBeLessThan(12);
}, 60_000);
