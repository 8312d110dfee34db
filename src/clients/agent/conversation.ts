import { type BashToolResult, RunnerToolUse, spawnFailureText } from '../../protocol/bash/index.js';
import type {
  BashToolDefinition,
  Message,
  ResponseContentBlock,
  Turn,
} from '../../protocol/messages/index.js';

/** The tool the reference agent offers on every request: the built-in shell tool, newest type. */
export const BASH_TOOL: BashToolDefinition = { type: 'bash_20250124', name: 'bash' };

type ToolUse = Extract<ResponseContentBlock, { type: 'tool_use' }>;

/** Every tool_use block of a reply, in reply order. */
export function toolUsesOf(message: Message): ToolUse[] {
  return message.content.filter((block): block is ToolUse => block.type === 'tool_use');
}

/** The spec's loop continues only while a reply holds a tool_use block for `bash`. */
export function hasBashToolUse(message: Message): boolean {
  return toolUsesOf(message).some((block) => block.name === 'bash');
}

/** The reply as the assistant turn appended to the conversation (its whole content, unchanged). */
export function assistantTurnOf(message: Message): Turn {
  return { role: 'assistant', content: message.content };
}

/** One user turn holding every tool_result, in the order of the tool_use blocks they answer. */
export function toolResultTurn(results: readonly BashToolResult[]): Turn {
  return { role: 'user', content: [...results] };
}

/**
 * How the agent answers one tool_use block: a bash call with a valid input goes to the
 * runner; anything else gets an error result right away, because the real API refuses a
 * follow-up that leaves a tool_use of the previous turn unanswered.
 */
export type Dispatch =
  | { kind: 'run'; toolUse: RunnerToolUse }
  | { kind: 'answer'; result: BashToolResult; why: 'unknown-tool' | 'bad-input' };

export function dispatchOf(block: ToolUse): Dispatch {
  if (block.name !== 'bash') {
    return {
      kind: 'answer',
      why: 'unknown-tool',
      result: errorResult(
        block.id,
        `Tool ${JSON.stringify(block.name)} is not available; only bash is offered.`,
      ),
    };
  }
  // `{"restart": true}` alone is what the real bash tool sends to restart: it goes to the runner too.
  const parsed = RunnerToolUse.safeParse(block);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join('.') || '(root)';
    return {
      kind: 'answer',
      why: 'bad-input',
      result: errorResult(
        block.id,
        `Invalid bash tool input at ${where}: ${issue?.message ?? 'invalid'} (expected {"command": string, "restart"?: boolean}, or {"restart": true}).`,
      ),
    };
  }
  return { kind: 'run', toolUse: parsed.data };
}

/** The result of a runner that failed instead of answering (Errors: process cannot be started). */
export function runnerFailureResult(id: string, error: unknown): BashToolResult {
  return errorResult(id, spawnFailureText(error instanceof Error ? error.message : String(error)));
}

function errorResult(id: string, content: string): BashToolResult {
  return { type: 'tool_result', tool_use_id: id, content, is_error: true };
}

/** The text blocks of a reply, joined by newlines (what the agent prints at the end). */
export function textOfMessage(message: Message): string {
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}
