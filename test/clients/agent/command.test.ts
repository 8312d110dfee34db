import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  AGENT_EXIT,
  type AgentCommandIo,
  parseTranscript,
  runAgentCommand,
} from '../../../src/clients/agent/index.js';
import {
  type MockMessagesService,
  type Reply,
  scriptScenario,
  startMockMessagesService,
} from '../../../src/mocks/messages/index.js';
import { fakeRunner, textReply, toolReply } from './helpers.js';

let mock: MockMessagesService;
let dir: string;

beforeAll(async () => {
  mock = await startMockMessagesService({ apiKey: 'k-cmd' });
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-agent-cmd-test-'));
});
afterAll(async () => {
  await mock.close();
  await rm(dir, { recursive: true, force: true });
});

async function command(
  replies: Reply[],
  env: Record<string, string | undefined> = {},
  io: Partial<AgentCommandIo> & { tty?: boolean } = {},
) {
  mock.setScenario(scriptScenario(replies));
  const before = mock.journal.size;
  let stdout = '';
  let stderr = '';
  const runner = fakeRunner();
  const workdirs: string[] = [];
  let closed = 0;
  const exitCode = await runAgentCommand({
    stdin: 'please list the files\n',
    env: {
      WIRECHECK_BASE_URL: mock.url,
      WIRECHECK_API_KEY: 'k-cmd',
      WIRECHECK_WORKDIR: join(dir, 'work'),
      ...env,
    },
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s), isTTY: io.tty ?? false },
    bashRunner: ({ workdir }) => {
      workdirs.push(workdir);
      return {
        runBash: runner.runBash,
        close: async () => {
          closed++;
        },
      };
    },
    ...io,
  });
  return { exitCode, stdout, stderr, requests: mock.journal.entries().slice(before), workdirs, closed };
}

describe('the agent target command (TARGETS.md, agent)', () => {
  test('exit 0 when the loop ends; the final answer is printed on stdout; the prompt is sent trimmed', async () => {
    const r = await command([toolReply('c1', ['echo hi']), textReply('All done.')]);
    expect(r.exitCode).toBe(AGENT_EXIT.done);
    expect(r.stdout).toBe('All done.\n');
    expect((r.requests[0]!.body as { messages: unknown[] }).messages[0]).toEqual({
      role: 'user',
      content: 'please list the files',
    });
    expect(r.workdirs).toEqual([join(dir, 'work')]);
    expect(r.closed).toBe(1);
  });

  test('exit 0 when the turn cap (WIRECHECK_MAX_TURNS) is reached', async () => {
    const endless = Array.from({ length: 8 }, (_, i) => toolReply(`e${i}`, ['true']));
    const r = await command(endless, { WIRECHECK_MAX_TURNS: '3' });
    expect(r.exitCode).toBe(AGENT_EXIT.done);
    expect(r.requests).toHaveLength(3);
    expect(r.stderr).toContain('turn cap');
  });

  test('exit 3 and a line asking for operator intervention when the breaker trips', async () => {
    const r = await command([toolReply('b', ['false', 'false', 'false'])]);
    expect(r.exitCode).toBe(AGENT_EXIT.breaker);
    expect(r.stderr).toMatch(/^agent: operator intervention required: 3 consecutive commands failed/m);
    expect(r.closed).toBe(1);
  });

  test('progress is plain lines without escape codes when stderr is not a terminal', async () => {
    const r = await command([toolReply('p', ['echo x']), textReply('ok')]);
    expect(r.stderr).not.toContain('\x1b');
    expect(r.stderr.split('\n')).toEqual(
      expect.arrayContaining(['agent: turn 1/10: request sent', 'agent: turn 1: asked for 1 tool call']),
    );
  });

  test('progress is redrawn in place with colours on a terminal', async () => {
    const r = await command([toolReply('t', ['echo x']), textReply('ok')], {}, { tty: true });
    expect(r.stderr).toContain('\r\x1b[K');
    expect(r.stderr).toContain('\x1b[32m✓');
  });

  test('the transcript (WIRECHECK_TRANSCRIPT) holds every event as a JSON line', async () => {
    const path = join(dir, 'logs', 'transcript.jsonl');
    await command([toolReply('tr', ['echo x']), textReply('ok')], { WIRECHECK_TRANSCRIPT: path });
    const records = parseTranscript(await readFile(path, 'utf8'));
    expect(records.map((r) => r.type)).toEqual([
      'prompt',
      'request',
      'reply',
      'command',
      'result',
      'request',
      'reply',
      'end',
    ]);
    expect(records.at(-1)).toMatchObject({ type: 'end', reason: 'done', turns: 2 });
  });

  test('the --transcript option wins over the variable', async () => {
    const flag = join(dir, 'flag.jsonl');
    const env = join(dir, 'env.jsonl');
    await command([textReply('ok')], { WIRECHECK_TRANSCRIPT: env }, { flags: { transcript: flag } });
    expect(parseTranscript(await readFile(flag, 'utf8')).at(-1)).toMatchObject({ reason: 'done' });
    await expect(readFile(env, 'utf8')).rejects.toThrow();
  });

  test('without a key the agent exits 1 before sending anything', async () => {
    const r = await command([textReply('x')], { WIRECHECK_API_KEY: undefined });
    expect(r.exitCode).toBe(AGENT_EXIT.failure);
    expect(r.requests).toHaveLength(0);
    expect(r.stderr).toContain('no API key');
  });

  test('a failing request exits 1 and says why', async () => {
    const r = await command([
      { kind: 'error', status: 400, errorType: 'invalid_request_error', message: 'bad' },
    ]);
    expect(r.exitCode).toBe(AGENT_EXIT.failure);
    expect(r.stderr).toContain('StatusError');
  });

  test('an empty prompt or a malformed setting is a usage error (exit 2) and nothing is sent', async () => {
    const empty = await command([textReply('x')], {}, { stdin: ' \n' });
    expect(empty.exitCode).toBe(AGENT_EXIT.usage);
    const bad = await command([textReply('x')], { WIRECHECK_MAX_TURNS: 'ten' });
    expect(bad.exitCode).toBe(AGENT_EXIT.usage);
    expect(bad.stderr).toContain('WIRECHECK_MAX_TURNS must be an integer >= 1, got "ten"');
    expect(empty.requests.length + bad.requests.length).toBe(0);
  });

  test('an interrupted run exits 130', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await command([textReply('x')], {}, { signal: controller.signal });
    expect(r.exitCode).toBe(AGENT_EXIT.interrupted);
  });
});
