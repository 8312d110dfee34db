import type { RunBash } from '../../../src/clients/agent/index.js';
import type { Reply } from '../../../src/mocks/messages/index.js';
import type { RunnerToolUse } from '../../../src/protocol/bash/index.js';
import type { Message } from '../../../src/protocol/messages/index.js';

/**
 * A runner that runs nothing: `echo X` answers "X\n", `true` and any other command succeed
 * silently, `false` and `exit N` (N > 0) fail. It records every tool_use it was given.
 */
export function fakeRunner(): { runBash: RunBash; seen: RunnerToolUse[] } {
  const seen: RunnerToolUse[] = [];
  const runBash: RunBash = async (toolUse) => {
    seen.push(toolUse);
    const command = toolUse.input.command ?? '';
    if (toolUse.input.command === undefined) {
      return {
        type: 'tool_result',
        tool_use_id: toolUse.id,
        content: 'tool has been restarted.',
        is_error: false,
      };
    }
    const exit = /^exit (\d+)$/.exec(command);
    const failed = command === 'false' || (exit !== null && exit[1] !== '0');
    const echo = /^echo (.*)$/.exec(command);
    const content = echo ? `${echo[1]}\n` : failed ? '(no output; exit code 1)' : '(no output; exit code 0)';
    return { type: 'tool_result', tool_use_id: toolUse.id, content, is_error: failed };
  };
  return { runBash, seen };
}

let replies = 0;

/** A reply asking for `commands`, one bash tool_use each, ids `toolu_<tag>_<k>`. */
export function toolReply(tag: string, commands: readonly string[]): Reply {
  return {
    kind: 'message',
    message: message(
      [
        { type: 'text', text: `Running ${commands.length} commands.` },
        ...commands.map((command, k) => ({
          type: 'tool_use' as const,
          id: `toolu_${tag}_${k}`,
          name: 'bash',
          input: { command },
        })),
      ],
      'tool_use',
    ),
  };
}

/** A final answer without any tool call. */
export function textReply(text: string): Reply {
  return { kind: 'message', message: message([{ type: 'text', text }], 'end_turn') };
}

function message(content: Message['content'], stopReason: Message['stop_reason']): Message {
  replies++;
  return {
    id: `msg_agent_test_${replies}`,
    type: 'message',
    role: 'assistant',
    model: 'mock-model',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

/** The request bodies the mock received, in order. */
export function bodies(entries: readonly { body: unknown }[]): {
  messages: { role: string; content: unknown }[];
  tools?: unknown[];
  stream?: boolean;
}[] {
  return entries.map((e) => e.body as never);
}
