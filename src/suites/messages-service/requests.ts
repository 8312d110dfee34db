import type { BashToolDefinition, MessageRequest, Turn } from '../../protocol/messages/index.js';

/** The suite's shell tool, in the type every current model accepts without a beta header. */
export const BASH_TOOL: BashToolDefinition = { type: 'bash_20250124', name: 'bash' };

/** A prompt any model answers with a little text. */
export const TEXT_PROMPT = 'Reply with the single word: wirecheck';
/** A prompt that makes a model offered the bash tool call it. */
export const TOOL_PROMPT = 'Use the bash tool to run: echo wirecheck';

/** `stream`: true, absent (false) or written out as `false` (the spec: "absent or false is buffered"). */
export type StreamFlag = boolean | 'explicit-false';

function streamField(stream: StreamFlag): { stream?: boolean } {
  if (stream === 'explicit-false') return { stream: false };
  return stream ? { stream: true } : {};
}

export function textRequest(model: string, stream: StreamFlag): MessageRequest {
  return {
    model,
    max_tokens: 64,
    messages: [{ role: 'user', content: TEXT_PROMPT }],
    ...streamField(stream),
  };
}

/** The text request with a stop sequence the reply is asked to contain: a reply may stop on it. */
export function stopSequenceRequest(model: string): MessageRequest {
  return { ...textRequest(model, false), stop_sequences: ['wirecheck'] };
}

export function toolRequest(
  model: string,
  stream: StreamFlag,
  tool: BashToolDefinition = BASH_TOOL,
): MessageRequest {
  return {
    model,
    max_tokens: 512,
    tools: [tool],
    messages: [{ role: 'user', content: TOOL_PROMPT }],
    ...streamField(stream),
  };
}

/**
 * "Endpoints: follow-up turn": the earlier turns, an assistant turn with tool_use blocks
 * (made up here, with ids of our own), a user turn holding one tool_result per tool_use,
 * and the tools sent again.
 */
export function followUpRequest(model: string, commands: readonly string[]): MessageRequest {
  const ids = commands.map((_, i) => `toolu_wirecheck_${i + 1}`);
  const assistant: Turn = {
    role: 'assistant',
    content: commands.map((command, i) => ({
      type: 'tool_use' as const,
      id: ids[i]!,
      name: 'bash',
      input: { command },
    })),
  };
  const results: Turn = {
    role: 'user',
    content: commands.map((command, i) => ({
      type: 'tool_result' as const,
      tool_use_id: ids[i]!,
      content: `${command.replace(/^echo /, '')}\n`,
      is_error: false,
    })),
  };
  return {
    model,
    max_tokens: 128,
    tools: [BASH_TOOL],
    messages: [
      { role: 'user', content: commands.length === 1 ? TOOL_PROMPT : `${TOOL_PROMPT}; then run: echo two` },
      assistant,
      results,
    ],
  };
}
