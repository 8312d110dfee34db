import type { MessageRequest, Turn } from '../../protocol/messages/index.js';

/*
 * The real API's rules on blank text, which the spec does not state (so they are the mock's
 * alone, like the empty-turn rule). Each is refused in its own words, heard in 400 bodies:
 *
 * - "messages: text content blocks must be non-empty": a text block of "" anywhere in a turn.
 *   LibreChat-AI/agents#124 called messages.create directly: `[text:'']` "(anywhere)" is
 *   refused; the SDKs' threads show it in assistant turns beside a tool_use
 *   (anthropics/anthropic-sdk-python#461, anthropics/anthropic-sdk-typescript#658).
 * - "messages: text content blocks must contain non-whitespace text": a turn whose text is
 *   all whitespace. The same calls: `[text:' ']` and `[text:'\n']` are refused, but
 *   `[text:' ', text:'real']` is accepted ("rejects those when the message has no other
 *   non-whitespace text content"), an assistant turn of whitespace text beside tool blocks
 *   too (the web_search follow-up that PR fixes; aaif-goose/goose#7343, beside tool requests).
 * - "messages: final assistant content cannot end with trailing whitespace": the prefill
 *   (tailcallhq/forgecode#1872, langchain-ai/langchain#35072, vercel/ai#2124).
 *
 * - "system: text content blocks must contain non-whitespace text": a block of the `system`
 *   array that is all whitespace, even beside blocks of real text (agentjido/req_llm#712: a
 *   whitespace block between two system prompts; NousResearch/hermes-agent#86643: one carrying
 *   cache_control; anomalyco/opencode#35101). An empty one is refused as empty, like a turn's
 *   (opencode#46289 leaves them out for that).
 *
 * What those sources leave open is served, not refused: a `system` string of whitespace, a
 * final assistant turn's empty or blank blocks (only its end is judged), a string turn of
 * whitespace, a user turn of blank text beside a tool_result or an image, and text blank only
 * by Unicode spaces (a non-breaking space is whitespace to some readings and not to others).
 */

/** Whitespace in every reading of the word: ASCII space and the C0 spacing controls. */
const BLANK = /^[ \t\n\v\f\r]*$/;
const TRAILING_BLANK = /[ \t\n\v\f\r]+$/;
/** How much of a blank text a refusal quotes (the text is whitespace, so no secret is in it). */
const QUOTE_CHARS = 12;

type Block = { type: string; text?: unknown };

/** The first blank-text rule a request breaks, located after the real API's words, or undefined. */
export function textBlockError(request: MessageRequest): string | undefined {
  const system = systemTextError(request.system);
  if (system !== undefined) return system;
  const last = request.messages.length - 1;
  for (let i = 0; i <= last; i++) {
    const turn = request.messages[i]!;
    const broken =
      i === last && turn.role === 'assistant' ? trailingWhitespaceError(turn, i) : blankTextError(turn, i);
    if (broken !== undefined) return broken;
  }
  return undefined;
}

/**
 * Each block of a `system` array is judged alone: real text beside a blank block does not save
 * it. A string is one block to the real API: "" is refused as an empty block (t8y2/dbx#1298,
 * UKGovernmentBEIS/inspect_ai#2412); a string of whitespace no source tried, so it is served.
 */
function systemTextError(system: MessageRequest['system']): string | undefined {
  if (system === '') return 'system: text content blocks must be non-empty (system is "")';
  if (!Array.isArray(system)) return undefined;
  const j = system.findIndex((block) => BLANK.test(block.text));
  if (j === -1) return undefined;
  const blank = system[j]!.text;
  return blank === ''
    ? `system: text content blocks must be non-empty (system.${j} is "")`
    : `system: text content blocks must contain non-whitespace text (system.${j} is ${quote(blank)})`;
}

function blankTextError(turn: Turn, i: number): string | undefined {
  if (typeof turn.content === 'string') return undefined;
  const blocks = turn.content as Block[];
  const texts = blocks.flatMap((b, j) =>
    b.type === 'text' && typeof b.text === 'string' ? [{ j, text: b.text }] : [],
  );
  const empty = texts.find((t) => t.text === '');
  if (empty)
    return `messages: text content blocks must be non-empty (messages.${i}.content.${empty.j} is "")`;
  if (texts.length === 0 || texts.some((t) => !BLANK.test(t.text))) return undefined;
  // A user turn's blank text beside a tool_result or an image is not judged (no source tried it).
  if (turn.role === 'user' && texts.length < blocks.length) return undefined;
  const first = texts[0]!;
  return (
    'messages: text content blocks must contain non-whitespace text ' +
    `(messages.${i} has no text but whitespace: content.${first.j} is ${quote(first.text)})`
  );
}

function trailingWhitespaceError(turn: Turn, i: number): string | undefined {
  const content = turn.content;
  const end =
    typeof content === 'string' ? { at: `messages.${i}`, text: content } : endText(content as Block[], i);
  const tail = end === undefined ? null : TRAILING_BLANK.exec(end.text);
  if (!end || !tail) return undefined;
  return (
    'messages: final assistant content cannot end with trailing whitespace ' +
    `(${end.at} ends with ${quote(tail[0].slice(-QUOTE_CHARS))})`
  );
}

/** The final block when it is text: content ending in a tool_use or an image does not end with whitespace. */
function endText(blocks: Block[], i: number): { at: string; text: string } | undefined {
  const j = blocks.length - 1;
  const block = blocks[j];
  return block?.type === 'text' && typeof block.text === 'string'
    ? { at: `messages.${i}.content.${j}`, text: block.text }
    : undefined;
}

function quote(text: string): string {
  return JSON.stringify(text.slice(0, QUOTE_CHARS)) + (text.length > QUOTE_CHARS ? '...' : '');
}
