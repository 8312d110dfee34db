import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { startReferenceAgent } from '../../../src/suites/agent/entry.js';
import { startReferenceRunner } from '../../../src/suites/runner/entry.js';
import { probeRunnerIsolation } from '../../../src/suites/runner/reference-isolation.js';

// `wirecheck all` on a machine where the runner's isolation cannot be set up (a user without
// bubblewrap): the reference runner and agent run with an explicit --isolation none and a
// note, instead of refusing. The probe is forced to fail by standing in for the machine's
// tools: no bwrap, no unshare, no setpriv.
const noIsolationTools = { bwrap: null, unshare: null, setpriv: null };
const failingProbe = () => probeRunnerIsolation(noIsolationTools);

const dir = mkdtempSync(join(tmpdir(), 'wirecheck-reference-isolation-'));
// Run as root, the runner drops to nobody, who must get through to the working directory.
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the probe says why no isolation level works when the tools are missing', async () => {
  const problem = await failingProbe();
  expect(problem).toMatch(/^no isolation level works here: bwrap: not installed/);
});

test('with no isolation here, the reference runner runs with --isolation none and a note that says why and how to get it', async () => {
  const reference = await startReferenceRunner(failingProbe);
  const runner = (reference.target as { runner: string }).runner;
  expect(runner).toMatch(/ run-bash --isolation none$/);
  expect(reference.note).toContain('no isolation level works on this machine (bwrap: not installed;');
  expect(reference.note).toContain('run with --isolation none');
  expect(reference.note).toContain('apt-get install bubblewrap');
  expect(reference.note).not.toContain('To isolate commands'); // the runner's own advice is replaced, not repeated
  // The command really runs (it is not refused): one tool_use in, its tool_result out.
  const ran = spawnSync('sh', ['-c', runner], {
    env: { ...process.env, WIRECHECK_WORKDIR: join(dir, 'wd') },
    input: `${JSON.stringify({ type: 'tool_use', id: 'a', name: 'bash', input: { command: 'echo hi' } })}\n`,
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(ran.status, ran.stderr).toBe(0);
  expect(JSON.parse(ran.stdout)).toMatchObject({ tool_use_id: 'a', content: 'hi\n', is_error: false });
  expect(ran.stderr).toContain('isolation none');
}, 60_000);

test('the reference agent gets the same --isolation none and note', async () => {
  const reference = await startReferenceAgent(failingProbe);
  expect((reference.target as { agent: string }).agent).toMatch(/ agent --isolation none$/);
  expect(reference.note).toContain('apt-get install bubblewrap');
});

test('where isolation works, the references are started as they are, with no note', async () => {
  const works = async () => undefined;
  const runner = await startReferenceRunner(works);
  expect((runner.target as { runner: string }).runner).toMatch(/ run-bash$/);
  expect(runner.note).toBeUndefined();
  const agent = await startReferenceAgent(works);
  expect((agent.target as { agent: string }).agent).toMatch(/ agent$/);
  expect(agent.note).toBeUndefined();
});
