import {
  atCodePoint,
  type ContentBlock,
  type Message,
  type MessageRequest,
  type StopReason,
} from '../../protocol/messages/index.js';
import { estimateTokens, inputTokensOf, lastUserTurn, textOf, toolResultsOf } from './conversation.js';
import { messageIdFor, type Reply, type Scenario, toolUseIdFor } from './reply.js';

type ResponseBlock = Extract<ContentBlock, { type: 'text' | 'tool_use' }>;

/**
 * A deterministic stand-in for a model.
 * - `echo` answers with the text of the last user turn (cut at the first stop sequence
 *   found, or at max_tokens, with the matching stop reason).
 * - `bash` behaves like a model that uses the shell tool: for a prompt it answers with a
 *   text block and one bash tool_use per line holding `run: <command>` (or
 *   `echo '<prompt>'` when there is none); once the last user turn carries tool results
 *   it answers with a text summarising them and stop_reason end_turn. Without a tool
 *   named `bash` in the request it only answers with text, as a model would.
 * Ids derive from the request index, so a run is reproducible.
 */
export function scriptedModel(kind: 'echo' | 'bash'): Scenario {
  return (request, { requestIndex }) =>
    kind === 'echo' ? echoReply(request, requestIndex) : bashReply(request, requestIndex);
}

function echoReply(request: MessageRequest, requestIndex: number): Reply {
  const turn = lastUserTurn(request);
  const text =
    textOf(turn) ||
    toolResultsOf(turn)
      .map((r) => r.content)
      .join('\n');
  let out = text;
  let stopReason: StopReason = 'end_turn';
  let stopSequence: string | null = null;
  let cutAt = Number.POSITIVE_INFINITY;
  for (const seq of request.stop_sequences ?? []) {
    const at = seq === '' ? -1 : text.indexOf(seq);
    if (at !== -1 && at < cutAt) {
      cutAt = at;
      stopSequence = seq;
    }
  }
  if (stopSequence !== null) {
    out = text.slice(0, cutAt);
    stopReason = 'stop_sequence';
  }
  let outputTokens = estimateTokens(out);
  if (outputTokens > request.max_tokens) {
    out = out.slice(0, atCodePoint(out, request.max_tokens * 4));
    outputTokens = request.max_tokens;
    stopReason = 'max_tokens';
    stopSequence = null;
  }
  return messageReply(
    request,
    requestIndex,
    [{ type: 'text', text: out }],
    stopReason,
    stopSequence,
    outputTokens,
  );
}

function bashReply(request: MessageRequest, requestIndex: number): Reply {
  const turn = lastUserTurn(request);
  const results = toolResultsOf(turn);
  if (results.length > 0) {
    const lines = results.map(
      (r) => `${r.toolUseId}: ${r.isError ? 'error' : 'ok'}: ${abbreviate(r.content)}`,
    );
    return textReply(request, requestIndex, `Tool results:\n${lines.join('\n')}`);
  }
  if (!(request.tools ?? []).some((t) => t.name === 'bash')) {
    return textReply(request, requestIndex, 'The bash tool was not offered, so no command was run.');
  }
  const commands = commandsOf(textOf(turn));
  const content: ResponseBlock[] = [
    {
      type: 'text',
      text: commands.length === 1 ? `I will run: ${commands[0]}` : `I will run ${commands.length} commands.`,
    },
    ...commands.map(
      (command, k): ResponseBlock => ({
        type: 'tool_use',
        id: toolUseIdFor(requestIndex, k),
        name: 'bash',
        input: { command },
      }),
    ),
  ];
  const outputTokens = estimateTokens(JSON.stringify(content));
  return messageReply(request, requestIndex, content, 'tool_use', null, outputTokens);
}

/** Every `run: <command>` line of the prompt, or `echo '<prompt>'` when there is none. */
export function commandsOf(prompt: string): string[] {
  const commands: string[] = [];
  for (const line of prompt.split(/\r\n|\r|\n/)) {
    const m = /\brun:\s*(.*\S)\s*$/i.exec(line);
    if (m?.[1]) commands.push(m[1]);
  }
  return commands.length > 0 ? commands : [`echo ${shellQuote(prompt.trim())}`];
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function abbreviate(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length <= 200 ? flat || '(no output)' : `${flat.slice(0, atCodePoint(flat, 200))}...`;
}

function textReply(request: MessageRequest, requestIndex: number, text: string): Reply {
  return messageReply(
    request,
    requestIndex,
    [{ type: 'text', text }],
    'end_turn',
    null,
    estimateTokens(text),
  );
}

function messageReply(
  request: MessageRequest,
  requestIndex: number,
  content: ResponseBlock[],
  stopReason: StopReason,
  stopSequence: string | null,
  outputTokens: number,
): Reply {
  const message: Message = {
    id: messageIdFor(requestIndex),
    type: 'message',
    role: 'assistant',
    model: request.model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopSequence,
    usage: { input_tokens: inputTokensOf(request), output_tokens: outputTokens },
  };
  return { kind: 'message', message, splits: content.map(splitsOf) };
}

/**
 * Several deltas per block, as a real stream has: text every 12 code units, JSON every 10,
 * a cut that would split a surrogate pair moved before it.
 */
function splitsOf(block: ResponseBlock): number[] {
  const payload = block.type === 'text' ? block.text : JSON.stringify(block.input);
  const step = block.type === 'text' ? 12 : 10;
  const offsets: number[] = [];
  // A step of 10 or more: a cut moved back by one still comes after the one before.
  for (let o = step; o < payload.length; o += step) offsets.push(atCodePoint(payload, o));
  return offsets;
}
