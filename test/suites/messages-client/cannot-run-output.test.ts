import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { runSuite, shellQuote } from '../../../src/harness/run-suite.js';
import { messagesClientSuite } from '../../../src/suites/messages-client/index.js';

// A client that cannot reach the mock says why on stdout, as the target contract has it
// (`{"error":{"kind":...,"message":...}}`): the message that it cannot run quotes that line.

const SECRET = 'sk-wirecheck-secret-4711-abcdef';

let dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  dirs = [];
});

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wc-mc-output-'));
  dirs.push(dir);
  return dir;
}

/** A script that prints the contract's connection error, with the key it was given, and fails. */
async function failingScript(dir: string): Promise<string> {
  const script = join(dir, 'client.sh');
  await writeFile(
    script,
    `printf '{"error":{"kind":"connection","status":null,"message":"connect ECONNREFUSED 10.0.0.1:443 (key %s)"}}\\n' "$MY_API_KEY"\necho 'client: giving up' >&2\nexit 1\n`,
  );
  return script;
}

/** `sh script` given the secret in the command, where a user's credential would be and the scrubber finds it. */
function withSecret(script: string): string {
  return `MY_API_KEY=${SECRET} sh ${shellQuote(script)}`;
}

test('a client that never reaches the mock: the message quotes its stdout error line, scrubbed, and its stderr', async () => {
  const client = withSecret(await failingScript(await scratch()));
  const error = await runSuite(messagesClientSuite, { client }, { seed: 1, runs: 1 }).catch(
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TargetUnavailable);
  const message = (error as Error).message;
  expect(message).toMatch(
    /never sent a request to the mock \(exit 1; stdout: \{"error":\{"kind":"connection","status":null,"message":"connect ECONNREFUSED 10\.0\.0\.1:443 \(key \[redacted\]\)"\}\}; first lines of stderr:\nclient: giving up\)/,
  );
  expect(message).not.toContain(SECRET);
}, 30_000);

test('a client that says nothing on stdout is told so', async () => {
  const error = await runSuite(messagesClientSuite, { client: 'exit 3' }, { seed: 1, runs: 1 }).catch(
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TargetUnavailable);
  expect((error as Error).message).toContain('never sent a request to the mock (exit 3; nothing on stdout)');
}, 30_000);

test('a client that stops working mid-run: the cause quotes what it printed on stdout', async () => {
  const dir = await scratch();
  const runs = join(dir, 'runs');
  // Its first run (the preflight) reaches the mock; every later run fails as failingScript does.
  const reach = `${shellQuote(process.execPath)} -e ${shellQuote(
    "fetch(process.env.WIRECHECK_BASE_URL + '/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': process.env.ANTHROPIC_API_KEY ?? '' }, body: '{}' }).then((r) => r.text(), () => '')",
  )}`;
  const failing = await failingScript(dir);
  const script = join(dir, 'flaky.sh');
  await writeFile(
    script,
    `mkdir -p ${shellQuote(runs)}; mktemp -p ${shellQuote(runs)} > /dev/null; n=$(ls ${shellQuote(runs)} | wc -l)\nif [ "$n" -le 1 ]; then exec ${reach}; fi\nexec sh ${shellQuote(failing)}\n`,
  );
  const result = await runSuite(
    messagesClientSuite,
    { client: withSecret(script) },
    { seed: 1, runs: 1, only: ['messages-client.buffered.final-message'] },
  );
  const gone = result.checks.filter((c) => c.targetGone === true);
  expect(gone).toHaveLength(1);
  expect(gone[0]!.message).toMatch(
    /no longer reaches the mock .*\(exit 1; stdout: \{"error":\{"kind":"connection".*\(key \[redacted\]\)"\}\}; first lines of stderr:\nclient: giving up\)/s,
  );
  expect(JSON.stringify(result)).not.toContain(SECRET);
}, 60_000);
