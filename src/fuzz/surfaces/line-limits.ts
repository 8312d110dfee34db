import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { createLineDecoder, type LineProblem } from '../../protocol/jsonrpc/index.js';
import { chunkBytes } from '../../suites/arbitraries/messages.js';
import { type FuzzSurface, FuzzViolation } from '../surface.js';

/** One line as both decoders report it: its number and its value, or why it has none. */
type Seen = { lineNumber: number; value: unknown } | { lineNumber: number; problem: LineProblem };

export interface LineCase {
  readonly bytes: Uint8Array;
  readonly cuts: number[];
  readonly maxLineBytes: number;
  readonly maxDepth: number;
}

const encoder = new TextEncoder();

/** JSON values nested up to 8 deep, brackets that never close, log lines, blank lines. */
const arbLine: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue({ maxDepth: 8 }).map((v) => JSON.stringify(v)),
  fc.integer({ min: 1, max: 12 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.integer({ min: 1, max: 12 }).map((n) => `{"a":${'['.repeat(n)}1${']'.repeat(n)}}`),
  fc.constantFrom('y', 'Starting server...', '', ' ', '\r', '{"a":', '"[[[["', '[1,2'),
  fc.string({ maxLength: 20 }),
);

const arbCase: fc.Arbitrary<LineCase> = fc
  .record({
    lines: fc.array(fc.tuple(arbLine, fc.constantFrom('\n', '\r\n')), { maxLength: 12 }),
    last: fc.oneof(fc.constant(''), arbLine),
    maxLineBytes: fc.integer({ min: 1, max: 80 }),
    maxDepth: fc.integer({ min: 1, max: 10 }),
  })
  .chain(({ lines, last, maxLineBytes, maxDepth }) => {
    const bytes = encoder.encode(lines.map(([l, end]) => l + end).join('') + last);
    const cuts =
      bytes.length < 2
        ? fc.constant<number[]>([])
        : fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 20 });
    return cuts.map((c) => ({ bytes, cuts: c, maxLineBytes, maxDepth }));
  })
  .map((c) =>
    Object.assign(c, {
      [fc.toStringMethod]: () =>
        `{bytes: ${JSON.stringify(Buffer.from(c.bytes).toString('utf8'))}, cuts: ${fc.stringify(c.cuts)}, maxLineBytes: ${c.maxLineBytes}, maxDepth: ${c.maxDepth}}`,
    }),
  );

/** Nesting of a parsed value, by recursion (the inputs here are small). */
function depthOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (v !== null && typeof v === 'object') return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}

/** Deepest run of open brackets outside strings (a string left open runs to the end), for text that is not JSON. */
function bracketDepth(text: string): number {
  const outside = text.replace(/"(?:[^"\\]|\\[\s\S])*(?:"|\\?$)/g, '');
  let depth = 0;
  let max = 0;
  for (const c of outside) {
    if (c === '[' || c === '{') max = Math.max(max, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return max;
}

/**
 * The framing written out naively over the whole stream: split at LF, one CR before it
 * dropped, blank lines skipped, a line of more than maxLineBytes bytes too long, then
 * JSON.parse and the depth of what it gives. Depth is judged before the rest of the syntax:
 * text that is not JSON but opens more brackets than maxDepth is too deep, unless its first
 * character cannot start a JSON value at all.
 */
export function referenceLines(c: LineCase): Seen[] {
  const out: Seen[] = [];
  const parts = Buffer.from(c.bytes).toString('latin1').split('\n');
  const last = parts.pop() ?? '';
  let lineNumber = 0;
  for (const part of parts) {
    const raw = Buffer.from(part, 'latin1');
    let text = new TextDecoder().decode(raw);
    if (raw.length > c.maxLineBytes) {
      out.push({ lineNumber: ++lineNumber, problem: 'too-long' });
      continue;
    }
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') continue;
    lineNumber++;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      const cannotStart = /^[ \t\r\n]*[^ \t\r\n{["\-0-9tfn]/.test(text);
      out.push({
        lineNumber,
        problem: !cannotStart && bracketDepth(text) > c.maxDepth ? 'too-deep' : 'syntax',
      });
      continue;
    }
    out.push(depthOf(value) > c.maxDepth ? { lineNumber, problem: 'too-deep' } : { lineNumber, value });
  }
  const rest = Buffer.from(last, 'latin1');
  if (rest.length > c.maxLineBytes) out.push({ lineNumber: ++lineNumber, problem: 'too-long' });
  else if (new TextDecoder().decode(rest).trim() !== '') {
    out.push({ lineNumber: ++lineNumber, problem: 'unterminated' });
  }
  return out;
}

export const lineLimitsSurface: FuzzSurface<LineCase> = {
  name: 'line-limits',
  description:
    'newline JSON framing (stdio) with small line and depth limits on JSON, log lines and unclosed brackets cut into random chunks: never throws, reports every line over maxLineBytes or maxDepth where a whole-stream JSON.parse reference does, parses the rest alike',
  open: () => ({
    arbitrary: arbCase,
    check(c) {
      const actual: Seen[] = [];
      try {
        const decoder = createLineDecoder({
          maxLineBytes: c.maxLineBytes,
          maxDepth: c.maxDepth,
          onLine: (l) => {
            if (!l.ok && l.reason === 'too-long' && l.bytes <= c.maxLineBytes) {
              throw new FuzzViolation(`a too-long line of ${l.bytes} bytes, within ${c.maxLineBytes}`);
            }
            actual.push(
              l.ok
                ? { lineNumber: l.lineNumber, value: l.value }
                : { lineNumber: l.lineNumber, problem: l.reason },
            );
          },
        });
        for (const chunk of chunkBytes(c.bytes, c.cuts)) decoder.feed(chunk);
        decoder.end();
      } catch (e) {
        if (e instanceof FuzzViolation) throw e;
        throw new FuzzViolation(
          `the decoder threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
        );
      }
      const expected = referenceLines(c);
      if (!isDeepStrictEqual(actual, expected)) {
        throw new FuzzViolation(
          `the decoder reported ${fc.stringify(actual).slice(0, 600)}, the whole-stream reference ${fc.stringify(expected).slice(0, 600)}`,
        );
      }
    },
  }),
};
