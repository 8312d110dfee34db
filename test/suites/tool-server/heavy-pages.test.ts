import { expect, test } from 'vitest';
import { quickSuite, runAgainst, serverScript, stdioTarget } from './helpers.js';

test('pages of tools/list are read up to 16 MiB: the list is judged on them, and where the pages end is not exercised', async () => {
  const result = await runAgainst(
    stdioTarget(`${serverScript('heavy-pages')} --transport stdio`),
    { only: ['tool-server.tools.list-shape', 'tool-server.tools.list-pages'] },
    quickSuite,
  );
  const byId = new Map(result.checks.map((c) => [c.id, c]));
  expect(byId.get('tool-server.tools.list-shape')?.status).toBe('pass');
  expect(byId.get('tool-server.tools.list-pages')?.status).toBe('skip');
  expect(byId.get('tool-server.tools.list-pages')?.message).toMatch(
    /the end of the pages was not seen: the 6 pages read hold \d+ characters, more than the 16777216 wirecheck reads/,
  );
}, 120_000);
