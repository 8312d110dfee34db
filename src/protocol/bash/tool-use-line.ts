import type { z } from 'zod';
import { BashToolInput } from '../messages/tools.js';
import type { InputLine } from './json-lines.js';
import { invalidInputText } from './texts.js';
import { type BashToolResult, BashToolUse } from './tool-result.js';

/**
 * The input the runner accepts: a bash tool_use whose `command` may be left out when
 * `restart` is true (Anthropic's bash tool sends `{"restart": true}` alone).
 */
export const RunnerToolInput = BashToolInput.partial({ command: true }).refine(
  (input) => input.command !== undefined || input.restart === true,
  { message: 'command is required (a string) unless restart is true', path: ['command'] },
);
export type RunnerToolInput = z.infer<typeof RunnerToolInput>;

export const RunnerToolUse = BashToolUse.extend({ input: RunnerToolInput });
export type RunnerToolUse = z.infer<typeof RunnerToolUse>;

/** A line parsed into a tool_use the runner can act on, or the error result it gets instead. */
export type ParsedLine =
  | { readonly ok: true; readonly toolUse: RunnerToolUse }
  | { readonly ok: false; readonly toolUseId: string; readonly problem: string };

export function toolResult(toolUseId: string, content: string, isError: boolean): BashToolResult {
  return { type: 'tool_result', tool_use_id: toolUseId, content, is_error: isError };
}

/** The error result for a line the runner could not use: `tool_use_id` "" when no id could be read. */
export function invalidLineResult(parsed: { toolUseId: string; problem: string }): BashToolResult {
  return toolResult(parsed.toolUseId, invalidInputText(parsed.problem), true);
}

function describeIssue(issue: z.core.$ZodIssue, value: unknown): string {
  const where = issue.path.map(String).join('.') || '(the line)';
  if (issue.path.join('.') === 'name' && typeof value === 'object' && value !== null && 'name' in value) {
    return `unknown tool ${JSON.stringify((value as { name: unknown }).name)}: this runner runs only "bash"`;
  }
  return `${where}: ${issue.message}`;
}

/**
 * One JSON line as the runner contract feeds it (the target contract in the README, runner). Anything that is not
 * a bash tool_use with a usable input is reported with what was wrong and, when the line
 * has a string `id`, that id, so the error result still answers the right block.
 */
export function parseToolUseLine(line: InputLine): ParsedLine {
  if (line.kind === 'too-long') {
    return {
      ok: false,
      toolUseId: '',
      problem: `the line has ${line.bytes} bytes, over the ${line.maxBytes} allowed`,
    };
  }
  if (line.kind === 'not-utf8') return { ok: false, toolUseId: '', problem: 'the line is not valid UTF-8' };
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch (e) {
    const why = line.text.trim() === '' ? 'the line is empty' : (e as Error).message;
    return { ok: false, toolUseId: '', problem: `the line is not JSON (${why})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, toolUseId: '', problem: 'the line is not a JSON object (expected a tool_use block)' };
  }
  const id = (value as { id?: unknown }).id;
  const toolUseId = typeof id === 'string' ? id : '';
  const parsed = RunnerToolUse.safeParse(value);
  if (!parsed.success) {
    const problem = parsed.error.issues.map((issue) => describeIssue(issue, value)).join('; ');
    return { ok: false, toolUseId, problem };
  }
  return { ok: true, toolUse: parsed.data };
}
