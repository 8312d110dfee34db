import { expect, test } from 'vitest';
import { httpOf } from '../../../src/mocks/tools/http-common.js';
import { messageEntry, ToolJournal } from '../../../src/mocks/tools/journal.js';

/** Busy-waits `ms`: the event loop stalled between building an entry and recording it, as under load. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

test("a request's start (atMs - bodyMs) is its headers' arrival, however late its entry is recorded", () => {
  const journal = new ToolJournal();
  const headersAt = performance.now();
  const entryOf = () =>
    messageEntry('{}', {
      session: 's',
      transport: 'http',
      direction: 'received',
      http: httpOf('POST', '/mcp', 202, {}, headersAt),
    });
  const prompt = journal.record(entryOf());
  // Built, then recorded after a stall: the two clock readings of the old code drifted by the stall.
  const built = entryOf();
  stall(40);
  const late = journal.record(built);
  const beganAt = (e: typeof late) => e.atMs - (e.http?.bodyMs ?? Number.NaN);
  expect(late.atMs - prompt.atMs).toBeGreaterThanOrEqual(40);
  expect(Math.abs(beganAt(late) - beganAt(prompt))).toBeLessThan(0.01);
  expect(late.http).not.toHaveProperty('headersAt');
});

test('an entry without timing keeps none', () => {
  const journal = new ToolJournal();
  const entry = journal.record(
    messageEntry('{}', {
      session: 's',
      transport: 'http',
      direction: 'received',
      http: httpOf('GET', '/mcp', 200, {}),
    }),
  );
  expect(entry.http).toEqual({ method: 'GET', url: '/mcp', status: 200, headers: {} });
});
