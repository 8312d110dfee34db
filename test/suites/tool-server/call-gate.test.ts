import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { HarnessBug } from '../../../src/harness/check.js';
import type { SuiteResult } from '../../../src/harness/results.js';
import type { Tool } from '../../../src/protocol/mcp/index.js';
import {
  CallLedger,
  MAX_SAVED_ARGUMENT_CHARS,
  notAllowedReason,
} from '../../../src/suites/tool-server/call-gate.js';
import { callPolicy } from '../../../src/suites/tool-server/call-policy.js';
import type { CallToolsOption } from '../../../src/suites/tool-server/index.js';
import { RpcPeer } from '../../../src/suites/tool-server/peer.js';
import { quickSuite, runAgainst, SEED, serverScript, stdioTarget } from './helpers.js';

// The call gate (call-gate.ts): no tools/call leaves the suite for a tool the user did not
// allow, whether a check or a --replay file names it, and the report says what was called.

const GENERATED = 'tool-server.tools.generated-arguments';
const NOT_CALLED = 'tool-server.tools.not-called';

let dir: string;
let log: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-call-gate-'));
  log = join(dir, 'calls.jsonl');
  process.env.WIRECHECK_TEST_CALL_LOG = log;
});

afterEach(async () => {
  delete process.env.WIRECHECK_TEST_CALL_LOG;
  await rm(dir, { recursive: true, force: true });
});

/** Every tools/call the fixture server was sent, in order. */
async function calls(): Promise<Array<{ name: string; args: unknown }>> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { name: string; args: unknown });
}

function server(callTools?: CallToolsOption, ...flags: string[]) {
  return stdioTarget([serverScript('logged-calls'), ...flags].join(' '), callTools);
}

/** A run of generated-arguments with only this saved case (what `--replay FILE` runs). */
function replay(value: unknown, callTools?: CallToolsOption): Promise<SuiteResult> {
  return runAgainst(
    server(callTools),
    {
      only: [GENERATED],
      replay: { seed: SEED, path: '0', property: 0, value: { json: value } },
    },
    quickSuite,
  );
}

function check(result: SuiteResult, id: string) {
  const found = result.checks.find((c) => c.id === id);
  expect(found, `${id} in the result`).toBeDefined();
  return found!;
}

describe('a --replay file never widens what may be called', () => {
  const crafted = { tool: 'delete_file', args: { path: '/home/user/important' } };

  test('a saved case naming a tool the default policy refuses is not sent: skip, naming the flag', async () => {
    const result = await replay(crafted);
    const generated = check(result, GENERATED);
    expect(generated.status).toBe('skip');
    expect(generated.message).toMatch(
      /the counterexample calls delete_file, which the default call policy does not allow .*add --call-tools delete_file/,
    );
    expect(await calls()).toEqual([]);
  }, 60_000);

  test('nor one naming a tool --call-tools leaves out: the message gives the widened flag', async () => {
    const result = await replay(crafted, ['read_file']);
    const generated = check(result, GENERATED);
    expect(generated.status).toBe('skip');
    expect(generated.message).toMatch(
      /the counterexample calls delete_file, which --call-tools does not allow \(it names read_file\); to allow it, add --call-tools read_file,delete_file/,
    );
    expect(await calls()).toEqual([]);
  }, 60_000);

  test('nor, even under --call-tools all, one naming a tool the server does not list', async () => {
    const result = await replay({ tool: 'run_shell', args: { command: 'rm -rf ~/important' } }, 'all');
    const generated = check(result, GENERATED);
    expect(generated.status).toBe('skip');
    expect(generated.message).toMatch(
      /the counterexample calls run_shell, which the server does not list \(it lists: read_file, delete_file\)/,
    );
    expect(await calls()).toEqual([]);
  }, 60_000);

  test('nor one whose arguments are larger than the generator ever makes', async () => {
    const result = await replay({
      tool: 'read_file',
      args: { path: 'x'.repeat(MAX_SAVED_ARGUMENT_CHARS + 1) },
    });
    const generated = check(result, GENERATED);
    expect(generated.status).toBe('skip');
    expect(generated.message).toMatch(/arguments for read_file are \d+ characters of JSON, more than the/);
    expect(await calls()).toEqual([]);
  }, 60_000);

  test('nor one not shaped as a call', async () => {
    const generated = check(await replay({ tool: 42 }), GENERATED);
    expect(generated.status).toBe('skip');
    expect(generated.message).toMatch(/not a call as the generator makes one/);
    expect(await calls()).toEqual([]);
  }, 60_000);

  test('a saved case naming an allowed tool is still replayed, with its own arguments', async () => {
    const result = await replay({ tool: 'read_file', args: { path: '/wirecheck-replayed' } });
    expect(check(result, GENERATED).status).toBe('pass');
    expect(await calls()).toEqual([{ name: 'read_file', args: { path: '/wirecheck-replayed' } }]);
  }, 60_000);
});

test('tools.not-called names the tools called, why each could be, and how often', async () => {
  const result = await runAgainst(server(), { only: [GENERATED, NOT_CALLED] }, quickSuite);
  expect(check(result, GENERATED).status).toBe('pass');
  const sent = await calls();
  expect(sent.length).toBeGreaterThan(0);
  expect(new Set(sent.map((c) => c.name))).toEqual(new Set(['read_file']));
  const note = check(result, NOT_CALLED);
  expect(note.status).toBe('skip');
  expect(note.message).toContain(`called: read_file (readOnlyHint: true, ${sent.length} calls)`);
  expect(note.message).toMatch(/tools not called \(not annotated readOnlyHint: true.*\): delete_file/);
}, 60_000);

test('with checks run at once (--jobs 4) tools.not-called counts every call of the run: it runs last', async () => {
  // The suite runs one check at a time whatever --jobs says; this holds the counts whole should it not.
  const result = await runAgainst(server(), { only: [GENERATED, NOT_CALLED], jobs: 4 }, quickSuite);
  const sent = await calls();
  expect(sent.length).toBeGreaterThan(0);
  expect(check(result, NOT_CALLED).message).toContain(
    `called: read_file (readOnlyHint: true, ${sent.length} calls)`,
  );
}, 60_000);

test('the unknown-tool probe never calls a tool the server lists under its name', async () => {
  const result = await runAgainst(
    server('all', '--list-probe-name'),
    { only: ['tool-server.tools.unknown-tool-rejected'] },
    quickSuite,
  );
  expect(await calls()).toEqual([{ name: 'wirecheck-no-such-tool-7f3a-2', args: {} }]);
  const rejected = check(result, 'tool-server.tools.unknown-tool-rejected');
  expect(rejected.status).toBe('pass');
}, 60_000);

describe('the gate every session passes (peer)', () => {
  const tool = (name: string, annotations?: Record<string, unknown>): Tool => ({
    name,
    inputSchema: { type: 'object' },
    ...(annotations === undefined ? {} : { annotations }),
  });
  const listed = [tool('read_file', { readOnlyHint: true }), tool('delete_file')];
  const call = (name: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name } });

  function gated(): { peer: RpcPeer; ledger: CallLedger } {
    const ledger = new CallLedger();
    ledger.usePolicy(callPolicy(listed, 'some-server', undefined));
    const peer = new RpcPeer('test', () => {});
    peer.callGate = ledger;
    return { peer, ledger };
  }

  test('a tools/call of an allowed tool passes and is counted', () => {
    const { peer, ledger } = gated();
    const message = call('read_file');
    peer.recordSent(JSON.stringify(message), message);
    expect(ledger.calls().get('read_file')).toBe(1);
  });

  test('a tools/call of a refused, unlisted or unnamed tool stops the run as a bug of wirecheck, alone or in a batch', () => {
    const { peer, ledger } = gated();
    for (const message of [
      call('delete_file'),
      call('run_shell'),
      call(7),
      [call('read_file'), call('delete_file')],
      { jsonrpc: '1.0', id: 2, method: 'tools/call', params: { name: 'delete_file' } },
    ]) {
      expect(() => peer.recordSent(JSON.stringify(message), message)).toThrow(HarnessBug);
    }
    // Nothing of a refused batch was counted (nor sent: recordSent comes before the write).
    expect(ledger.calls().size).toBe(0);
  });

  test('a replay naming a tool listed with an entry the Tool schema refuses says so, not that it is unlisted', () => {
    const policy = callPolicy([tool('read_file')], 'some-server', 'all', { count: 1, names: ['bad_entry'] });
    expect(notAllowedReason(policy, 'bad_entry', 'the counterexample calls')).toMatch(
      /^the counterexample calls bad_entry, which the server lists with an entry the Tool schema refuses/,
    );
    expect(notAllowedReason(policy, 'other', 'the counterexample calls')).toMatch(
      /which the server does not list/,
    );
  });

  test('before the policy is made no tool may be called; the probe name may, and never a listed one', () => {
    const ledger = new CallLedger();
    expect(ledger.refusal('read_file')).toMatch(/before the call policy was made/);
    const probe = ledger.probeName('probe', new Set(['probe', 'probe-2']));
    expect(probe).toBe('probe-3');
    expect(ledger.refusal(probe)).toBeUndefined();
    ledger.usePolicy(callPolicy([tool('probe-3')], 'some-server', 'all'));
    // Listed after all (a later policy): it is the server's tool, called only as the policy allows.
    expect(ledger.refusal(probe)).toBeUndefined();
    ledger.usePolicy(callPolicy([tool('probe-3')], 'some-server', 'none'));
    expect(ledger.refusal(probe)).toMatch(/--call-tools none does not allow/);
  });
});
