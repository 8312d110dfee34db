import { expect, test } from 'vitest';
import { quickSuite, runAgainst, statusById, testServer } from './helpers.js';

const WORKS = 'tool-server.sse.reconnect-new-session';
const FRESH = 'tool-server.sse.reconnect-fresh-id';

test('a new session that never answers initialize fails reconnect-new-session for that, and its fresh id is still judged', async () => {
  const result = await runAgainst(
    await testServer('deaf-after-close', 'sse'),
    { only: [WORKS, FRESH] },
    quickSuite,
  );
  expect(statusById(result)).toEqual({ [WORKS]: 'fail', [FRESH]: 'pass' });
  const works = result.checks.find((c) => c.id === WORKS)!;
  expect(works.message).toMatch(/^initialize on the new session was not answered with a result: /);
  expect(works.expected).toBe('an initialize result on the new stream');
}, 60_000);
