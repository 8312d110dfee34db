import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { nodeCommand, runAgainst } from './helpers.js';

// An agent that ignores WIRECHECK_WORKDIR runs the cases' commands where it was started: the
// user's project. The files they make there are removed at the suite's close, the user's kept.

let dir: string | undefined;
const home = process.cwd();
afterEach(() => {
  process.chdir(home);
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test('the marker files the cases’ commands make in the directory the agent started in are removed at the close, and a warning names them', async () => {
  dir = mkdtempSync(join(tmpdir(), 'wirecheck-user-project-'));
  chmodSync(dir, 0o777);
  writeFileSync(join(dir, 'notes.txt'), 'the user’s\n');
  const agent = nodeCommand('./broken/any-tool-in-cwd.mjs');
  process.chdir(dir);
  const result = await runAgainst(agent, { only: ['agent.runner.workdir', 'agent.loop.other-tool-ends'] });
  expect(result.checks.find((c) => c.id === 'agent.runner.workdir')?.status).toBe('fail');
  expect(readdirSync(dir)).toEqual(['notes.txt']);
  expect(result.warnings?.join('\n')).toMatch(
    /the agent ran commands in the directory it was started in \(.*\), not in WIRECHECK_WORKDIR: wirecheck removed the files the checks' commands made there \(wc-marker\.txt, wc-other-tool-ran\.txt\)/,
  );
}, 90_000);
