import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AgentEvent, type AgentLoopOptions, runAgentLoop } from '../../../src/clients/agent/index.js';
import { MessagesClient, StatusError } from '../../../src/clients/messages/index.js';
import {
  type MockMessagesService,
  type Reply,
  scriptScenario,
  startMockMessagesService,
} from '../../../src/mocks/messages/index.js';
import { bodies, fakeRunner, textReply, toolReply } from './helpers.js';

let mock: MockMessagesService;
let client: MessagesClient;

beforeAll(async () => {
  mock = await startMockMessagesService({ apiKey: 'k-agent' });
  client = new MessagesClient({ apiKey: 'k-agent', baseUrl: mock.url, maxRetries: 0 });
});
afterAll(() => mock.close());

/** Run the loop against `replies`; returns the outcome, the requests the mock saw and the events. */
async function loop(replies: Reply[], options: Partial<AgentLoopOptions> = {}) {
  mock.setScenario(scriptScenario(replies));
  const before = mock.journal.size;
  const runner = fakeRunner();
  const events: AgentEvent[] = [];
  const outcome = await runAgentLoop('list the files', {
    client,
    runBash: runner.runBash,
    model: 'mock-model',
    maxTokens: 256,
    onEvent: (e) => events.push(e),
    ...options,
  });
  const requests = bodies(mock.journal.entries().slice(before));
  return { outcome, requests, events, ran: runner.seen.map((t) => t.input.command) };
}

describe('tool-use loop (client side)', () => {
  test('a reply without a bash tool_use ends the loop after one request', async () => {
    const { outcome, requests } = await loop([textReply('nothing to run')]);
    expect(outcome.reason).toBe('done');
    expect(outcome.turns).toBe(1);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.messages).toEqual([{ role: 'user', content: 'list the files' }]);
  });

  test('the assistant turn is appended and one user turn holds one tool_result per tool_use, same ids', async () => {
    const reply = toolReply('several', ['echo a', 'true', 'echo b']);
    const { outcome, requests, ran } = await loop([reply, textReply('done')]);
    expect(outcome.reason).toBe('done');
    expect(ran).toEqual(['echo a', 'true', 'echo b']);
    expect(requests).toHaveLength(2);
    const [prompt, assistant, user, ...rest] = requests[1]!.messages;
    expect(rest).toEqual([]);
    expect(prompt).toEqual(requests[0]!.messages[0]);
    expect(assistant).toEqual({
      role: 'assistant',
      content: reply.kind === 'message' && reply.message.content,
    });
    expect(user).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_several_0', content: 'a\n', is_error: false },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_several_1',
          content: '(no output; exit code 0)',
          is_error: false,
        },
        { type: 'tool_result', tool_use_id: 'toolu_several_2', content: 'b\n', is_error: false },
      ],
    });
  });

  test('tools (the bash tool) is sent on every request', async () => {
    const { requests } = await loop([
      toolReply('t1', ['echo 1']),
      toolReply('t2', ['echo 2']),
      textReply('ok'),
    ]);
    expect(requests).toHaveLength(3);
    for (const body of requests) expect(body.tools).toEqual([{ type: 'bash_20250124', name: 'bash' }]);
  });

  test('the turn cap counts requests: a model that never stops gets exactly maxTurns requests', async () => {
    const endless = Array.from({ length: 10 }, (_, i) => toolReply(`cap${i}`, [`echo ${i}`]));
    const { outcome, requests, ran } = await loop(endless, { maxTurns: 4 });
    expect(outcome.reason).toBe('turn-cap');
    expect(outcome.turns).toBe(4);
    expect(requests).toHaveLength(4);
    // The commands of the last reply run ("executing -> result ready"), their results are not sent.
    expect(ran).toEqual(['echo 0', 'echo 1', 'echo 2', 'echo 3']);
  });

  test('the breaker trips at the third consecutive failure and the turn holding it is never sent', async () => {
    const replies = [
      toolReply('f1', ['false']),
      toolReply('f2', ['exit 2']),
      toolReply('f3', ['exit 1']),
      toolReply('f4', ['echo unreachable']),
    ];
    const { outcome, requests, events } = await loop(replies);
    expect(outcome.reason).toBe('breaker');
    expect(outcome.consecutiveFailures).toBe(3);
    expect(requests).toHaveLength(3);
    expect(events.at(-1)).toEqual({ type: 'end', reason: 'breaker', turns: 3, consecutiveFailures: 3 });
    // The halted conversation ends with the result turn that was ready but not sent.
    expect(outcome.messages.at(-1)).toMatchObject({ role: 'user', content: [{ tool_use_id: 'toolu_f3_0' }] });
  });

  test('three failures in one reply trip the breaker; the commands after the third do not run', async () => {
    const { outcome, requests, ran } = await loop([
      toolReply('one', ['false', 'exit 2', 'exit 1', 'echo after']),
    ]);
    expect(outcome.reason).toBe('breaker');
    expect(requests).toHaveLength(1);
    expect(ran).toEqual(['false', 'exit 2', 'exit 1']);
  });

  test('failures are counted per command across replies', async () => {
    const replies = [toolReply('x1', ['echo first', 'false', 'exit 2']), toolReply('x2', ['exit 1'])];
    const { outcome, requests } = await loop([...replies, textReply('unreachable')]);
    expect(outcome.reason).toBe('breaker');
    expect(requests).toHaveLength(2);
  });

  test('failures separated by a success do not trip the breaker', async () => {
    const replies = [
      toolReply('s1', ['false']),
      toolReply('s2', ['exit 2']),
      toolReply('s3', ['echo recovered']),
      toolReply('s4', ['false', 'echo ok', 'exit 1']),
      toolReply('s5', ['false']),
      textReply('finished'),
    ];
    const { outcome, requests } = await loop(replies);
    expect(outcome.reason).toBe('done');
    expect(outcome.consecutiveFailures).toBe(2);
    expect(requests).toHaveLength(6);
  });

  test('a tool_use of a tool other than bash is answered with an error and is not a command', async () => {
    const reply = toolReply('other', ['false', 'false']);
    if (reply.kind !== 'message') throw new Error('unreachable');
    reply.message.content.push({ type: 'tool_use', id: 'toolu_weather', name: 'get_weather', input: {} });
    const { outcome, requests, ran } = await loop([reply, toolReply('then', ['false']), textReply('x')]);
    expect(ran).toEqual(['false', 'false', 'false']);
    expect(outcome.reason).toBe('breaker');
    const results = requests[1]!.messages[2]!.content as {
      tool_use_id: string;
      is_error: boolean;
      content: string;
    }[];
    expect(results.map((r) => [r.tool_use_id, r.is_error])).toEqual([
      ['toolu_other_0', true],
      ['toolu_other_1', true],
      ['toolu_weather', true],
    ]);
    expect(results[2]!.content).toContain('"get_weather" is not available');
  });

  test('a reply whose only tool_use is not for bash ends the loop', async () => {
    const { outcome, requests } = await loop([
      {
        kind: 'message',
        message: {
          id: 'msg_x',
          type: 'message',
          role: 'assistant',
          model: 'm',
          content: [{ type: 'tool_use', id: 'toolu_w', name: 'get_weather', input: {} }],
          stop_reason: 'tool_use',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
    ]);
    expect(outcome.reason).toBe('done');
    expect(requests).toHaveLength(1);
  });

  test('a bash tool_use without a command string is answered with an error and not run', async () => {
    const reply = toolReply('bad', ['echo x']);
    if (reply.kind !== 'message') throw new Error('unreachable');
    reply.message.content[1] = { type: 'tool_use', id: 'toolu_bad_0', name: 'bash', input: { cmd: 'ls' } };
    const { requests, ran } = await loop([reply, textReply('ok')]);
    expect(ran).toEqual([]);
    const [result] = requests[1]!.messages[2]!.content as { is_error: boolean; content: string }[];
    expect(result).toMatchObject({ is_error: true });
    expect(result!.content).toContain('input.command');
  });

  test('a bare {"restart": true} (the real bash tool\'s restart call) goes to the runner', async () => {
    const reply = toolReply('rs', ['echo x']);
    if (reply.kind !== 'message') throw new Error('unreachable');
    reply.message.content[1] = { type: 'tool_use', id: 'toolu_rs_0', name: 'bash', input: { restart: true } };
    const { requests } = await loop([reply, textReply('ok')]);
    const [result] = requests[1]!.messages[2]!.content as { is_error: boolean; content: string }[];
    expect(result).toMatchObject({
      tool_use_id: 'toolu_rs_0',
      content: 'tool has been restarted.',
      is_error: false,
    });
  });

  test('a runner that throws yields a process execution error result', async () => {
    const { requests } = await loop([toolReply('boom', ['echo x']), textReply('ok')], {
      runBash: async () => {
        throw new Error('spawn bash EACCES');
      },
    });
    const [result] = requests[1]!.messages[2]!.content as { is_error: boolean; content: string }[];
    expect(result).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_boom_0',
      content: 'Process execution error: spawn bash EACCES',
      is_error: true,
    });
  });

  test('streamed replies are requested with stream: true and read like buffered ones', async () => {
    const { outcome, requests } = await loop([toolReply('st', ['echo s']), textReply('streamed')], {
      stream: true,
    });
    expect(outcome.reason).toBe('done');
    expect(requests.map((r) => r.stream)).toEqual([true, true]);
    expect(outcome.lastMessage.content).toEqual([{ type: 'text', text: 'streamed' }]);
  });

  test('a failed request rejects with the client error and reports it as an event', async () => {
    const events: AgentEvent[] = [];
    await expect(
      loop([toolReply('e', ['echo x']), { kind: 'error', status: 400, errorType: 'invalid_request_error' }], {
        onEvent: (e) => events.push(e),
      }),
    ).rejects.toBeInstanceOf(StatusError);
    expect(events.at(-1)).toMatchObject({ type: 'error', turn: 2 });
  });

  test('the events tell the loop in order', async () => {
    const { events } = await loop([toolReply('ev', ['echo e']), textReply('bye')]);
    expect(events.map((e) => e.type)).toEqual([
      'prompt',
      'request',
      'reply',
      'command',
      'result',
      'request',
      'reply',
      'end',
    ]);
  });

  test('maxTurns below 1 is a programming error', async () => {
    await expect(loop([textReply('x')], { maxTurns: 0 })).rejects.toThrow(/maxTurns must be an integer >= 1/);
  });
});
