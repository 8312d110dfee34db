import type { z } from 'zod';
import { ContentBlock, intendedToolShape, MessageRequest, type Turn } from '../../protocol/messages/index.js';
import { cutRequest } from './cut-request.js';
import { textBlockError } from './text-blocks.js';

export type RequestCheck = { ok: true; request: MessageRequest } | { ok: false; message: string };

/**
 * A request body as the real API judges it: the schema, then the conversation rules.
 * A refusal names the place (`messages.2.content.0.tool_use_id`) and what was expected,
 * like the real API's invalid_request_error messages.
 */
export function validateRequest(body: unknown): RequestCheck {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, message: `request body: expected a JSON object, got ${kindOf(body)}` };
  }
  // Refused at the first bad element of each array: zod describes them all (cut-request.ts).
  const judged = cutRequest(body);
  const parsed = MessageRequest.safeParse(judged);
  if (!parsed.success) return { ok: false, message: describeIssues(parsed.error.issues, judged) };
  const broken =
    emptyContentError(parsed.data) ??
    textBlockError(parsed.data) ??
    conversationError(parsed.data, { resultsFirst: true });
  return broken === undefined ? { ok: true, request: parsed.data } : { ok: false, message: broken };
}

/**
 * The real API's rule on empty turns, in its words: a turn of `""` or `[]` is refused, but for
 * a final assistant turn (a prefill the model goes on from). The spec does not state it, so
 * it is the mock's alone (the agent suite's spec rules leave it out).
 */
function emptyContentError(request: MessageRequest): string | undefined {
  const last = request.messages.length - 1;
  const empty = request.messages.findIndex(
    (turn, i) => turn.content.length === 0 && !(i === last && turn.role === 'assistant'),
  );
  return empty === -1
    ? undefined
    : `messages.${empty}: all messages must have non-empty content except for the optional final assistant message`;
}

type Issue = z.core.$ZodIssue;
type Path = PropertyKey[];

function describeIssues(issues: readonly Issue[], body: unknown): string {
  const first = issues[0];
  if (!first) return 'request body: invalid';
  const { path, message } = specific(first, [], body);
  return `${path.map(String).join('.') || '(root)'}: ${message}`;
}

const INVALID_KNOWN_BLOCK = 'known block type with an invalid shape';

/** The most precise place and wording for an issue (unions and known block types dug into). */
function specific(issue: Issue, prefix: Path, body: unknown): { path: Path; message: string } {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'custom' && issue.message === INVALID_KNOWN_BLOCK && path.at(-1) === 'type') {
    // A text/tool_use/tool_result block that is wrong in a field: parse it as that block
    // type to say which field, instead of "not some other block type".
    const blockPath = path.slice(0, -1);
    const again = ContentBlock.safeParse(valueAt(body, blockPath));
    const inner = again.success ? undefined : again.error.issues[0];
    if (inner) return specific(inner, blockPath, body);
  }
  if (prefix.length === 0 && path[0] === 'tools' && typeof path[1] === 'number') {
    // The union says why a tool is none of the shapes; say what is wrong in the one it means to be.
    const toolPath = path.slice(0, 2);
    const tool = valueAt(body, toolPath);
    const again = intendedToolShape(tool).safeParse(tool);
    const inner = again.success ? undefined : again.error.issues[0];
    if (inner) return specific(inner, toolPath, body);
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const branches = issue.errors
      .map((branch) => branch[0])
      .filter((i): i is Issue => i !== undefined)
      .map((i) => specific(i, path, body));
    const depth = Math.max(...branches.map((b) => b.path.length));
    const deepest = branches.filter((b) => b.path.length === depth);
    if (deepest.length === 1 && depth > path.length) return deepest[0]!;
    const expected = issue.errors.flatMap((branch) =>
      branch[0]?.code === 'invalid_type' && branch[0].path.length === 0 ? [branch[0].expected] : [],
    );
    if (expected.length === issue.errors.length) {
      return { path, message: `expected ${expected.join(' or ')}, got ${kindOf(valueAt(body, path))}` };
    }
    return deepest[0] ?? { path, message: issue.message };
  }
  return { path, message: reword(issue, valueAt(body, path)) };
}

function reword(issue: Issue, value: unknown): string {
  if (issue.code === 'invalid_type') {
    return value === undefined
      ? `Field required (expected ${issue.expected})`
      : `expected ${issue.expected}, got ${kindOf(value)}`;
  }
  return issue.message;
}

function valueAt(root: unknown, path: Path): unknown {
  let v = root;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function blocksOf(turn: Turn | undefined): { type: string; id?: unknown; tool_use_id?: unknown }[] {
  return turn && Array.isArray(turn.content) ? (turn.content as { type: string }[]) : [];
}

function toolUseIds(turn: Turn | undefined): string[] {
  if (turn?.role !== 'assistant') return [];
  return blocksOf(turn).flatMap((b) => (b.type === 'tool_use' && typeof b.id === 'string' ? [b.id] : []));
}

/** The tool_result blocks of a user turn: the id each answers and its place in the turn. */
function toolResultsOf(turn: Turn | undefined): { id: string; at: number }[] {
  if (turn?.role !== 'user') return [];
  return blocksOf(turn).flatMap((b, at) =>
    b.type === 'tool_result' && typeof b.tool_use_id === 'string' ? [{ id: b.tool_use_id, at }] : [],
  );
}

function firstTextAt(turn: Turn | undefined): number {
  return blocksOf(turn).findIndex((b) => b.type === 'text');
}

/**
 * The real API's rules on tool blocks in a conversation (the spec's "Content blocks"
 * directions and the follow-up turn of "Endpoints"):
 * - tool_use blocks only in assistant turns, tool_result blocks only in user turns;
 * - each tool_result answers a tool_use of the immediately preceding assistant turn, and one
 *   tool_use has one tool_result (the spec: "one per tool_use block answered");
 * - the tool_use ids of a turn are unique (the real API refuses a repeated id; across turns it
 *   is not judged here, since the mock's own replay serves a recording's ids on every turn);
 * - every tool_use of an assistant turn is answered in the turn right after it (when
 *   there is one: a conversation may end with the assistant turn);
 * - a request holding tool blocks defines `tools` (sent again on every request);
 * - with `resultsFirst`, the real API's rule the spec does not state (so the mock's alone, not
 *   the agent suite's spec rules): a tool_result after a text block of its turn does not count
 *   as an answer. Anthropic's docs (Handle tool calls): "the tool_result blocks must come FIRST
 *   in the content array. Any text must come AFTER all tool results"; text first gets the 400 of
 *   an unanswered tool_use (QwenLM/qwen-code#8165, tried on the real API). An image or document
 *   before a tool_result is served: no source tried one.
 * Each is refused in the real API's words, backticks included (users' code matches on them to
 * repair a history), as heard in 400 bodies: "messages.33: `tool_use` ids were found without
 * `tool_result` blocks immediately after: ..." (Kilo-Org/kilocode#5163), "messages.12.content.0:
 * unexpected `tool_use_id` found in `tool_result` blocks: ..." (router-for-me/CLIProxyAPI#497),
 * "messages.1.content.1: `tool_use` ids must be unique" (anthropics/claude-code#20901).
 * Returns the first violation, located, or undefined.
 */
export function conversationError(
  request: MessageRequest,
  { resultsFirst = false }: { resultsFirst?: boolean } = {},
): string | undefined {
  const { messages } = request;
  for (let i = 0; i < messages.length; i++) {
    const turn = messages[i]!;
    const blocks = blocksOf(turn);
    // Sets, built once a turn: a body of hundreds of thousands of blocks stays linear.
    const previousUses = new Set(toolUseIds(messages[i - 1]));
    const usesSeen = new Set<unknown>();
    const resultsSeen = new Set<string>();
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!;
      const at = `messages.${i}.content.${j}`;
      if (block.type === 'tool_use' && turn.role !== 'assistant') {
        return `${at}: tool_use blocks may only appear in assistant turns; this turn's role is "${turn.role}"`;
      }
      if (block.type === 'tool_result' && turn.role !== 'user') {
        return `${at}: tool_result blocks may only appear in user turns; this turn's role is "${turn.role}"`;
      }
      if ((block.type === 'tool_use' || block.type === 'tool_result') && !request.tools?.length) {
        return `Requests which include \`tool_use\` or \`tool_result\` blocks must define tools. Found a ${block.type} block at ${at}.`;
      }
      if (block.type === 'tool_use') {
        if (usesSeen.has(block.id)) {
          return `${at}: \`tool_use\` ids must be unique (${String(block.id)} is used twice in this turn)`;
        }
        usesSeen.add(block.id);
      }
      if (block.type === 'tool_result') {
        const id = block.tool_use_id as string;
        if (resultsSeen.has(id)) {
          return `${at}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${id}`;
        }
        resultsSeen.add(id);
        if (!previousUses.has(id)) {
          return (
            `${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` ` +
            'block must have a corresponding `tool_use` block in the previous message.'
          );
        }
      }
    }
    const asked = toolUseIds(turn);
    if (asked.length > 0 && i + 1 < messages.length) {
      const next = messages[i + 1];
      const textAt = resultsFirst ? firstTextAt(next) : -1;
      const results = toolResultsOf(next);
      const answered = new Set(results.flatMap((r) => (textAt === -1 || r.at < textAt ? [r.id] : [])));
      const missing = asked.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        const unanswered = new Set(missing);
        const late = [...new Set(results.flatMap((r) => (unanswered.has(r.id) ? [r.id] : [])))];
        return (
          `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ` +
          `${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in ` +
          'the next message.' +
          (late.length === 0
            ? ''
            : ` The tool_result blocks for ${late.join(', ')} come after the text block at ` +
              `messages.${i + 1}.content.${textAt}: tool_result blocks must come first in the ` +
              `content array, any text after them.`)
        );
      }
    }
  }
  return undefined;
}
