import { HeldBytes } from '../held-line.js';
import {
  cannotStartMessage,
  DEFAULT_JSON_LIMITS,
  type PrefixRefusal,
  parseJsonBounded,
  prefixRefusal,
} from '../json/index.js';
import type { JsonRpcMessage } from './envelope.js';

/**
 * Newline-delimited JSON, the stdio transport's framing: one message per line, no embedded
 * newline (JSON.stringify never emits one). Pure; fed chunks of any size.
 */
export function encodeLine(message: JsonRpcMessage | unknown): string {
  return `${JSON.stringify(message)}\n`;
}

/**
 * Why a line is not a value: `syntax` (not JSON), `too-deep` (nested past maxDepth, refused
 * before parsing), `too-long` (past maxLineBytes: reported as soon as it passes, the rest
 * of it skipped), `unterminated` (the stream ended inside it).
 */
export type LineProblem = 'syntax' | 'too-deep' | 'too-long' | 'unterminated';

/** One line read from the stream, parsed or not. */
export type DecodedLine =
  | { readonly ok: true; readonly value: unknown; readonly line: string; readonly lineNumber: number }
  | {
      readonly ok: false;
      readonly reason: LineProblem;
      /** What is wrong, naming the limit where one was passed. */
      readonly error: string;
      /** The line's text; for `too-long`, its first 200 bytes; with `cut`, its head. */
      readonly line: string;
      readonly lineNumber: number;
      /** Bytes of the line (for `too-long`, those seen when it passed the limit). */
      readonly bytes: number;
      /** `line` is only the head of a long line refused from it (`unreadableHeadBytes`). */
      readonly cut?: true;
    };

/**
 * 16 MiB: the largest JSON text parsed (`DEFAULT_JSON_LIMITS.maxLength`), above any honest
 * message (the MCP SDKs send tool results of a few MB at most).
 */
export const DEFAULT_MAX_LINE_BYTES = DEFAULT_JSON_LIMITS.maxLength;

export interface LineDecoderOptions {
  /** Called once per complete line, blank lines excepted, in order. */
  onLine(line: DecodedLine): void;
  /**
   * A line longer than this many bytes is reported (`too-long`) as soon as it passes the
   * limit; the rest of it is skipped, counted but not kept. Default DEFAULT_MAX_LINE_BYTES.
   */
  readonly maxLineBytes?: number;
  /** Deepest nesting parsed (default DEFAULT_JSON_LIMITS.maxDepth, 512). */
  readonly maxDepth?: number;
  /**
   * A line longer than this many bytes (at least 200) whose head already shows it is not JSON
   * (a log line, `not json`, `2026 started`: prefixRefusal) is reported from its head and
   * never held or decoded whole: a target flooding such lines costs its reader counts, not
   * strings. Default: every line is decoded whole.
   */
  readonly unreadableHeadBytes?: number;
  /**
   * Read a last line the stream ends without a newline as a line, as a server reads a client
   * that closed its input right after its last message (JSON-RPC: valid JSON is no parse
   * error). Default: it is reported `unterminated`.
   */
  readonly readsLastLine?: boolean;
}

export interface LineDecoder {
  /** Feed bytes (split anywhere, also inside a UTF-8 sequence) or text. Never throws by itself. */
  feed(chunk: Uint8Array | string): void;
  /** The stream ended: a last line without a newline is reported as an error and returned (unless readsLastLine). */
  end(): string | undefined;
}

const NEWLINE = 0x0a;
/** Bytes of an overlong line kept to quote it. */
const HEAD_BYTES = 200;

/**
 * Split a byte stream into lines on `\n`, drop one trailing `\r` (as the MCP SDK does), decode
 * UTF-8 per whole line so a character split across chunks survives, and parse each line as
 * JSON within limits (parseJsonBounded: nothing that walks a value recurses on a target's
 * nesting). Invalid UTF-8 becomes U+FFFD, as JSON.parse of a decoded string would see it.
 * At most `maxLineBytes` of a line are ever held.
 */
export function createLineDecoder(options: LineDecoderOptions): LineDecoder {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const maxDepth = options.maxDepth ?? DEFAULT_JSON_LIMITS.maxDepth;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  /** What is kept of the current line (its head only, once the head shows it cannot be JSON). */
  const held = new HeldBytes();
  /** Bytes of the current line, kept or not. */
  let pendingBytes = 0;
  /** Inside a line over the limit, already reported: its bytes are counted and dropped. */
  let skipping = false;
  let lineNumber = 0;
  const headBytes =
    options.unreadableHeadBytes === undefined ? undefined : Math.max(HEAD_BYTES, options.unreadableHeadBytes);
  /**
   * Once the current line reached `headBytes`: its head, and why no text starting so is JSON
   * (`false`: the head cannot tell, the line is read whole).
   */
  let refused: { head: string; why: PrefixRefusal } | false | undefined;

  const emit = (bytes: Uint8Array): void => {
    let text = decoder.decode(bytes);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    lineNumber += 1;
    const parsed = parseJsonBounded(text, { maxDepth, maxLength: maxLineBytes });
    if (parsed.ok) options.onLine({ ok: true, value: parsed.value, line: text, lineNumber });
    else {
      options.onLine({
        ok: false,
        reason: parsed.reason,
        error: parsed.message,
        line: text,
        lineNumber,
        bytes: bytes.length,
      });
    }
  };

  /** Forget the current line: what is kept of it and the judgement of its head. */
  const startLine = (): void => {
    held.clear();
    pendingBytes = 0;
    refused = undefined;
  };

  const take = (): Uint8Array => {
    const joined = held.head();
    startLine();
    return joined;
  };

  /** Part of the current line: kept, or, once the line passes the limit, reported and dropped. */
  const keep = (bytes: Uint8Array, copy: boolean): void => {
    if (bytes.length === 0 || skipping) return;
    if (pendingBytes + bytes.length <= maxLineBytes) {
      if (headBytes !== undefined && pendingBytes >= headBytes) {
        if (refused === undefined) judgeHead(headBytes);
        // Past the head of a line that cannot be JSON: counted, not kept.
        if (refused) {
          pendingBytes += bytes.length;
          return;
        }
      }
      held.add(bytes, copy);
      pendingBytes += bytes.length;
      return;
    }
    const seen = pendingBytes + bytes.length;
    const quoted = concat([held.head(Math.min(held.length, HEAD_BYTES)), bytes], Math.min(seen, HEAD_BYTES));
    startLine();
    skipping = true;
    lineNumber += 1;
    options.onLine({
      ok: false,
      reason: 'too-long',
      error: `line longer than the ${maxLineBytes}-byte limit (maxLineBytes): ${seen} bytes and no newline yet; the rest of it is skipped`,
      line: decoder.decode(quoted),
      lineNumber,
      bytes: seen,
    });
  };

  /** The current line reached `headBytes`: judged from its head (decoded without a cut last character). */
  const judgeHead = (headBytes: number): void => {
    const head = new TextDecoder().decode(held.head(headBytes), { stream: true });
    const why = prefixRefusal(head);
    refused = why === undefined ? false : { head, why };
  };

  /** The current line ends, refused from its head: reported with the head as its text. */
  const refuse = (r: { head: string; why: PrefixRefusal }, reason: 'syntax' | 'unterminated'): void => {
    const bytes = pendingBytes;
    startLine();
    lineNumber += 1;
    options.onLine({
      ok: false,
      reason,
      error:
        reason === 'syntax'
          ? cannotStartMessage(r.why.char, r.why.position)
          : 'the stream ended inside a line (no newline after it)',
      line: r.head,
      lineNumber,
      bytes,
      cut: true,
    });
  };

  /** A newline arrived: the line so far is complete. */
  const lineEnd = (): void => {
    if (skipping) {
      skipping = false;
      return;
    }
    if (refused === undefined && headBytes !== undefined && pendingBytes > headBytes) judgeHead(headBytes);
    if (refused) refuse(refused, 'syntax');
    else emit(take());
  };

  return {
    feed(chunk) {
      const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
      let start = 0;
      for (;;) {
        const nl = bytes.indexOf(NEWLINE, start);
        if (nl < 0) break;
        keep(bytes.subarray(start, nl), false);
        lineEnd();
        start = nl + 1;
      }
      // Copied: the caller may reuse its buffer.
      if (start < bytes.length) keep(bytes.subarray(start), true);
    },
    end() {
      if (skipping) {
        skipping = false;
        return undefined;
      }
      if (pendingBytes === 0) return undefined;
      if (refused) {
        const head = refused.head;
        refuse(refused, 'unterminated');
        return head;
      }
      if (options.readsLastLine === true) {
        emit(take());
        return undefined;
      }
      const bytes = pendingBytes;
      const rest = take();
      const text = decoder.decode(rest);
      if (text.trim() === '') return undefined;
      lineNumber += 1;
      options.onLine({
        ok: false,
        reason: 'unterminated',
        error: 'the stream ended inside a line (no newline after it)',
        line: text,
        lineNumber,
        bytes,
      });
      return text;
    },
  };
}

/** The first `total` bytes of `chunks`, in one array. */
function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, total - at);
    out.set(part, at);
    at += part.length;
    if (at >= total) break;
  }
  return out;
}
