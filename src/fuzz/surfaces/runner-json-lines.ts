import { isUtf8 } from 'node:buffer';
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import {
  BashToolResult,
  blankOutputText,
  OUTPUT_LIMIT_BYTES,
  refusalText,
  restartText,
  STDERR_SEPARATOR,
  truncationNote,
} from '../../protocol/bash/index.js';
import { type BashRunner, createBashRunner, serveJsonLines } from '../../runner/index.js';
import { chunkBytes, interestingCuts } from '../../suites/arbitraries/messages.js';
import { scalarValueUnit } from '../../suites/arbitraries/scalar-value-unit.js';
import { jsonTextUnit } from '../mutations/json-text-unit.js';
import { type FuzzSurface, FuzzViolation } from '../surface.js';

/*
 * The reference bash runner's JSON Lines input (the target contract in the README, runner; docs/runner.md). A case
 * is a batch of input lines fed to `serveJsonLines` on one runner made in open() (a few
 * cases go to a real `wirecheck run-bash` process instead). Every line states the result
 * it must get; every result must come back as exactly one output line, in input order;
 * and after each batch the runner must still answer a valid line.
 *
 * What one line is: the input bytes split at LF; a CR just before the LF belongs to the
 * line ending; bytes after the last LF form one more line when there are any. A lone CR
 * is not a line ending.
 *
 * Only harmless, fast commands are ever valid (`true`, `echo x`, `printf`, `exit 3`...);
 * blocked strings appear only inside `echo '...'`. Before a batch is fed, every line that
 * parses as a tool_use with a string command must carry the command its case declares.
 */

/** Per-command timeout of the runner under test: far above what the harmless commands take. */
const TIMEOUT_S = 2;
/** A run-bash process that has not exited by then is a hang (below the 5 s case limit). */
const PROCESS_DEADLINE_MS = 4_500;

/** The result one input line must get. */
export type Expected =
  | { result: 'output'; id: string; content: string; isError: boolean }
  | { result: 'restarted'; id: string }
  | { result: 'refused'; id: string; pattern: string }
  /** A command holding a NUL byte: no shell can run it (docs/runner.md). */
  | { result: 'no shell'; id: string }
  /** Not a usable bash tool_use: `tool_use_id` is one of `ids` (the line's id when it can be read, else ""). */
  | { result: 'invalid'; ids: readonly string[] };

export interface LineItem {
  what: string;
  /** The line's bytes without its ending; never holds a LF. */
  body: Uint8Array;
  end: '\n' | '\r\n' | '';
  expected: Expected;
  /** The command this line carries, when it is built from a tool_use. */
  command?: string;
}

/** How the batch's bytes reach the runner. */
export type Feed =
  | { how: 'whole' }
  | { how: 'string' }
  | { how: 'bytewise' }
  | { how: 'cuts'; cuts: number[] }
  | { how: 'at every line break' };

export interface RunnerCase {
  shape: 'mixed' | 'flood' | 'huge';
  items: LineItem[];
  feed: Feed;
  /** The library path (`serveJsonLines`) or a real `wirecheck run-bash` process. */
  via: 'library' | 'process';
  /** The valid line that must be answered after the batch: one that runs, or one that does not. */
  liveness: 'runs' | 'answers';
}

type Obj = Record<string, unknown>;
const encoder = new TextEncoder();
const utf8 = (s: string): Uint8Array => encoder.encode(s);
const LF = 0x0a;

// ---------------------------------------------------------------------------------------
// Rendering JSON the ways a client may write it.

type Layout = 'compact' | 'spaced' | 'padded' | 'escaped';

/** Every UTF-16 unit as a \uXXXX escape: the same string to any JSON parser. */
function escapeAll(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) out += `\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return `${out}"`;
}

function render(value: unknown, layout: Layout): string {
  const sep = layout === 'compact' || layout === 'escaped' ? ',' : ', ';
  const colon = layout === 'compact' || layout === 'escaped' ? ':' : ': ';
  const text = (v: unknown): string => {
    if (typeof v === 'string') return layout === 'escaped' ? escapeAll(v) : JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.map(text).join(sep)}]`;
    if (typeof v === 'object' && v !== null) {
      return `{${Object.entries(v)
        .map(([k, x]) => `${text(k)}${colon}${text(x)}`)
        .join(sep)}}`;
    }
    return JSON.stringify(v);
  };
  // JSON whitespace (space, tab, CR) around the value; a CR before the LF is the line ending.
  return layout === 'padded' ? ` \t${text(value)}\t \r` : text(value);
}

// ---------------------------------------------------------------------------------------
// Valid tool_use lines.

/** Commands that are safe and fast to run, with the result the runner contract gives them. */
const HARMLESS: readonly { command: string; content: string; isError: boolean }[] = [
  { command: 'true', content: blankOutputText(0), isError: false },
  { command: 'false', content: blankOutputText(1), isError: true },
  { command: 'exit 3', content: blankOutputText(3), isError: true },
  { command: 'echo x', content: 'x\n', isError: false },
  { command: "printf 'a\\tb'", content: 'a\tb', isError: false },
  { command: 'echo x >&2', content: 'x\n', isError: false },
  {
    command: 'echo out; echo err >&2; exit 2',
    content: `out\n\n${STDERR_SEPARATOR}\nerr\n`,
    isError: true,
  },
  { command: "printf '\\303\\251 \\342\\234\\223'", content: 'é ✓', isError: false },
  // Whitespace-only output is blank (docs/runner.md, rule 6).
  { command: "printf ' \\n'", content: blankOutputText(0), isError: false },
];

const arbPrintfWord = fc
  .string({ unit: fc.constantFrom(...'abcxyz019 -_.'), maxLength: 12 })
  .map((word) => ({ command: `printf 'fuzz-%s' '${word}'`, content: `fuzz-${word}`, isError: false }));

const arbHarmless = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...HARMLESS) }, arbPrintfWord);

/** Blocked strings as a command may write them, with the spec's pattern each one is. */
const BLOCKED_VARIANTS: readonly [variant: string, pattern: string][] = [
  ['rm -rf /', 'rm -rf /'],
  ['RM -RF /', 'rm -rf /'],
  ['rm  -rf\t/', 'rm -rf /'],
  [':(){ :|:& };:', ':(){ :|:& };:'],
  [':(){:|:&};:', ':(){ :|:& };:'],
  ['mkfs', 'mkfs'],
  ['MKFS.ext4', 'mkfs'],
  ['dd if=', 'dd if='],
  ['dd   IF=', 'dd if='],
  ['> /dev/sda', '> /dev/sda'],
  ['>/dev/sda', '> /dev/sda'],
  ['chmod -R 777 /', 'chmod -R 777 /'],
  ['chmod -r 777 /', 'chmod -R 777 /'],
];

const arbId: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.nat().map((n) => `toolu_${n}`) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }) },
  // Any scalar value, NUL and LF included, and lone surrogates: the result line must still be one line.
  { weight: 2, arbitrary: fc.string({ unit: jsonTextUnit, minLength: 1, maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', 'a\nb', '\r\n', ' ', '"', '\\', '\u2028', '\uFEFF') },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 50_000 }).map((n) => 'i'.repeat(n)) },
);

/** Sets an own field, `__proto__` included, as JSON.parse makes it. */
function put(o: Obj, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Fields a client may add; the schema lets them through. Values never hold a command to run. */
const arbExtras: fc.Arbitrary<Obj> = fc
  .array(
    fc.tuple(
      fc.constantFrom('x_fuzz', 'description', 'cache_control', 'timeout', '__proto__', 'constructor'),
      fc.oneof(
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.string({ maxLength: 8 }),
        fc.constant({ restart: true }),
        fc.constant({ command: 'echo x' }),
      ),
    ),
    { maxLength: 2 },
  )
  .map((pairs) => {
    const extras: Obj = {};
    for (const [k, v] of pairs) put(extras, k, v);
    return extras;
  });

/** How a valid block is written: everything a JSON parser must read the same way. */
interface Shape {
  id: string;
  restart: boolean | undefined;
  extraTop: Obj;
  extraInput: Obj;
  layout: Layout;
  reversed: boolean;
}

const arbShape: fc.Arbitrary<Shape> = fc
  .tuple(
    arbId,
    fc.constantFrom(undefined, undefined, false, true),
    fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, arbExtras),
    fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, arbExtras),
    fc.constantFrom<Layout>('compact', 'compact', 'spaced', 'padded', 'escaped'),
    fc.boolean(),
  )
  .map(([id, restart, extraTop, extraInput, layout, reversed]) => ({
    id,
    restart,
    extraTop,
    extraInput,
    layout,
    reversed,
  }));

/** The block as an object, fields in the shape's order. */
function toolUseObject(shape: Shape, command: string | undefined): Obj {
  const input: Obj = {};
  const inputEntries: [string, unknown][] = [
    ...(command === undefined ? [] : [['command', command] as [string, unknown]]),
    ...(shape.restart === undefined ? [] : [['restart', shape.restart] as [string, unknown]]),
    ...Object.entries(shape.extraInput),
  ];
  for (const [k, v] of shape.reversed ? inputEntries.reverse() : inputEntries) put(input, k, v);
  const top: [string, unknown][] = [
    ['type', 'tool_use'],
    ['id', shape.id],
    ['name', 'bash'],
    ['input', input],
    ...Object.entries(shape.extraTop),
  ];
  const block: Obj = {};
  for (const [k, v] of shape.reversed ? top.reverse() : top) put(block, k, v);
  return block;
}

function toolUseLine(what: string, shape: Shape, command: string | undefined, expected: Expected): LineItem {
  return {
    what: `${what} (${shape.layout}${shape.restart === undefined ? '' : `, restart ${shape.restart}`})`,
    body: utf8(render(toolUseObject(shape, command), shape.layout)),
    end: '\n',
    expected,
    ...(command === undefined ? {} : { command }),
  };
}

const arbRunLine: fc.Arbitrary<LineItem> = fc.tuple(arbShape, arbHarmless).map(([shape, h]) =>
  toolUseLine(`runs ${JSON.stringify(h.command)}`, shape, h.command, {
    result: 'output',
    id: shape.id,
    content: h.content,
    isError: h.isError,
  }),
);

const arbRefusedLine: fc.Arbitrary<LineItem> = fc
  .tuple(arbShape, fc.constantFrom(...BLOCKED_VARIANTS), fc.constantFrom('', ' # \u0000', '; true'))
  .map(([shape, [variant, pattern], tail]) =>
    toolUseLine(`refused ${JSON.stringify(variant)}`, shape, `echo '${variant}'${tail}`, {
      result: 'refused',
      id: shape.id,
      pattern,
    }),
  );

const arbNulLine: fc.Arbitrary<LineItem> = fc
  .tuple(arbShape, fc.constantFrom(...HARMLESS), fc.nat())
  .map(([shape, h, n]) => {
    const at = n % (h.command.length + 1);
    const command = `${h.command.slice(0, at)}\u0000${h.command.slice(at)}`;
    return toolUseLine(`NUL in ${JSON.stringify(h.command)}`, shape, command, {
      result: 'no shell',
      id: shape.id,
    });
  });

const arbRestartLine: fc.Arbitrary<LineItem> = arbShape.map((shape) =>
  toolUseLine('restart alone', { ...shape, restart: true }, undefined, { result: 'restarted', id: shape.id }),
);

// ---------------------------------------------------------------------------------------
// Invalid lines. Each breaks one thing of a block that would otherwise run a harmless command.

/** Stands for a value written into a line's text after rendering. */
const MARK = '__wirecheck_fuzz_mark__';
const MISSING = Symbol('missing');
type Field = 'type' | 'id' | 'name' | 'input' | 'command' | 'restart';
const WRONG: Record<Field, readonly unknown[]> = {
  type: [MISSING, 'tool_result', 'TOOL_USE', 'tool-use', '', 5, null, ['tool_use'], {}],
  id: [MISSING, '', 5, 0, null, true, ['toolu_1'], { id: 'toolu_1' }],
  name: [MISSING, 'Bash', 'python', 'bash ', '', 'str_replace_based_edit_tool', 5, null, ['bash']],
  input: [MISSING, 'echo x', '', null, 5, [], [{ command: 'echo x' }], true],
  command: [MISSING, 5, -1.5, null, true, ['echo x'], { cmd: 'echo x' }],
  restart: ['true', 'false', 1, 0, null, 'yes', [], {}],
};

const arbWrongField: fc.Arbitrary<LineItem> = fc
  .tuple(arbShape, fc.constantFrom(...(Object.keys(WRONG) as Field[])), fc.nat(), fc.boolean())
  .map(([shape, field, n, restartAlone]) => {
    const value = WRONG[field][n % WRONG[field].length];
    const h = HARMLESS[n % HARMLESS.length]!;
    // Without a command, `restart: true` alone is valid: a broken command never comes with it.
    const restart = field === 'command' ? (restartAlone ? false : undefined) : shape.restart;
    const block = toolUseObject({ ...shape, restart }, h.command);
    const target = field === 'command' || field === 'restart' ? (block.input as Obj) : block;
    if (value === MISSING) delete target[field];
    else put(target, field, value);
    const id = block.id;
    return {
      what: `${field} is ${value === MISSING ? 'missing' : JSON.stringify(value)}`,
      body: utf8(render(block, shape.layout)),
      end: '\n' as const,
      expected: { result: 'invalid' as const, ids: [typeof id === 'string' ? id : ''] },
      command: h.command,
    };
  });

/** Bytes that are not UTF-8: a stray continuation, a cut character, an overlong form, a surrogate. */
const NOT_UTF8: readonly (readonly number[])[] = [
  [0xff],
  [0x80],
  [0xc3],
  [0xe2, 0x9c],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
];
/** Text that is not JSON whitespace, after a valid block. */
const TRAILING = ['x', '}', ',', '{}', 'null', '\u0000', '\u000b', '\f', '\u00a0', '\uFEFF', '\u2028'];
/** The same before it, less the BOM: RFC 8259 8.1 lets a parser ignore a leading one. */
const LEADING = TRAILING.filter((s) => s !== '\uFEFF');
/** Raw characters JSON forbids inside a string. */
const RAW_CONTROLS = ['\u0000', '\t', '\r', '\u001f', '\u0008'];

const arbBrokenText: fc.Arbitrary<LineItem> = fc
  .tuple(
    arbShape,
    arbHarmless,
    fc.constantFrom('truncated', 'trailing', 'leading', 'two blocks', 'raw control', 'not utf-8' as const),
    fc.nat(),
    fc.nat(),
  )
  .map(([shape, h, how, n, m]): LineItem => {
    const compact = { ...shape, layout: 'compact' as const };
    const text = render(toolUseObject(compact, h.command), 'compact');
    const bytes = utf8(text);
    const id = shape.id;
    const notJson = (what: string, body: Uint8Array): LineItem => ({
      what,
      body,
      end: '\n',
      expected: { result: 'invalid', ids: [''] },
      command: h.command,
    });
    switch (how) {
      case 'truncated': {
        const cut = n % text.length;
        return notJson(`truncated at ${cut} of ${text.length}`, utf8(text.slice(0, cut)));
      }
      case 'trailing': {
        const junk = TRAILING[n % TRAILING.length]!;
        return notJson(`followed by ${JSON.stringify(junk)}`, utf8(text + junk));
      }
      case 'leading': {
        const junk = LEADING[n % LEADING.length]!;
        return notJson(`preceded by ${JSON.stringify(junk)}`, utf8(junk + text));
      }
      case 'two blocks':
        // A lone CR is not a line ending: this is one line holding two blocks.
        return notJson('two blocks joined by a lone CR', utf8(`${text}\r${text}`));
      case 'raw control': {
        const raw = RAW_CONTROLS[n % RAW_CONTROLS.length]!;
        const quoted = JSON.stringify(h.command);
        const at = 1 + (m % (quoted.length - 1));
        const marked = render(toolUseObject(compact, MARK), 'compact');
        return notJson(
          `raw ${JSON.stringify(raw)} inside the command string`,
          utf8(marked.replace(JSON.stringify(MARK), () => `${quoted.slice(0, at)}${raw}${quoted.slice(at)}`)),
        );
      }
      default: {
        const bad = Buffer.from(NOT_UTF8[n % NOT_UTF8.length]!);
        const at = m % (bytes.length + 1);
        return {
          what: `bytes ${bad.toString('hex')} at byte ${at}`,
          body: Buffer.concat([bytes.subarray(0, at), bad, bytes.subarray(at)]),
          end: '\n',
          // docs/runner.md: the id "when it can be read"; a runner may or may not read past bad bytes.
          expected: { result: 'invalid', ids: ['', id] },
          command: h.command,
        };
      }
    }
  });

type DeepPlace =
  | 'beside the block'
  | 'beside the command'
  | 'as the command'
  | 'as the id'
  | 'as the input'
  | 'alone';

/** Arrays nested up to 100,000 deep, where the schema lets anything through and where it does not. */
const arbDeepLine: fc.Arbitrary<LineItem> = fc
  .tuple(
    arbShape,
    fc.constantFrom(...BLOCKED_VARIANTS),
    fc.integer({ min: 1, max: 100_000 }),
    fc.constantFrom<DeepPlace>(
      'beside the block',
      'beside the command',
      'as the command',
      'as the id',
      'as the input',
      'alone',
    ),
  )
  .map(([shape, [variant, pattern], depth, where]): LineItem => {
    const deep = '['.repeat(depth) + ']'.repeat(depth);
    const command = `echo '${variant}'`;
    const block = toolUseObject(shape, command);
    const input = block.input as Obj;
    if (where === 'beside the block') put(block, 'x_deep', MARK);
    if (where === 'beside the command') put(input, 'x_deep', MARK);
    if (where === 'as the command') put(input, 'command', MARK);
    if (where === 'as the id') put(block, 'id', MARK);
    if (where === 'as the input') put(block, 'input', MARK);
    const text =
      where === 'alone' ? deep : render(block, 'compact').replace(JSON.stringify(MARK), () => deep);
    const expected: Expected = where.startsWith('beside')
      ? { result: 'refused', id: shape.id, pattern }
      : { result: 'invalid', ids: [where === 'as the id' || where === 'alone' ? '' : shape.id] };
    return { what: `${depth} nested arrays ${where}`, body: utf8(text), end: '\n', expected, command };
  });

/** Whatever a line that is not a usable tool_use must get: its id when it has a string one. */
function junkExpected(body: Uint8Array): Expected {
  if (!isUtf8(body)) return { result: 'invalid', ids: [''] };
  try {
    const value: unknown = JSON.parse(Buffer.from(body).toString('utf8'));
    const id = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Obj).id : '';
    return { result: 'invalid', ids: [typeof id === 'string' ? id : ''] };
  } catch {
    return { result: 'invalid', ids: [''] };
  }
}

/** A body that carries a string command in an `input` object: it could run. */
function commandIn(body: Uint8Array): string | undefined {
  if (!isUtf8(body)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(body).toString('utf8'));
    const input = typeof value === 'object' && value !== null ? (value as Obj).input : undefined;
    const command = typeof input === 'object' && input !== null ? (input as Obj).command : undefined;
    return typeof command === 'string' ? command : undefined;
  } catch {
    return undefined;
  }
}

function junk(what: string, body: Uint8Array): LineItem {
  return { what, body, end: '\n', expected: junkExpected(body) };
}

const WHITESPACE_ONLY = ['', ' ', '\t', '\r', ' \r', '\r\r', '\t \t'];
const NOT_OBJECTS = [
  'null',
  '5',
  '-0',
  '1e999',
  '"tool_use"',
  'true',
  '[]',
  '[{}]',
  '{}',
  '{"id":"toolu_x"}',
];

const arbJunk: fc.Arbitrary<LineItem[]> = fc.oneof(
  fc.constantFrom(...WHITESPACE_ONLY).map((s) => [junk(`whitespace ${JSON.stringify(s)}`, utf8(s))]),
  fc.constantFrom(...NOT_OBJECTS).map((s) => [junk(`not a tool_use: ${s}`, utf8(s))]),
  fc
    .string({ unit: 'grapheme-ascii', maxLength: 40 })
    .map((s) => [junk('random text', utf8(s.replaceAll('\n', ' ')))]),
  fc
    .string({ unit: scalarValueUnit, maxLength: 40 })
    .map((s) => [junk('random text', utf8(s.replaceAll('\n', ' ')))]),
  fc.uint8Array({ maxLength: 60 }).map((b) => [
    junk(
      'random bytes',
      b.map((x) => (x === LF ? 0x20 : x)),
    ),
  ]),
  fc.jsonValue({ maxDepth: 3 }).map((v) => [junk('random JSON', utf8(JSON.stringify(v)))]),
  // A valid block written over several lines: JSON Lines reads each line on its own.
  fc.tuple(arbShape, arbHarmless).map(([shape, h]) =>
    JSON.stringify(toolUseObject(shape, h.command), null, 2)
      .split('\n')
      .map((line, i) => ({
        ...junk(`line ${i + 1} of a pretty-printed block`, utf8(line)),
        command: h.command,
      })),
  ),
);

// ---------------------------------------------------------------------------------------
// Huge lines (~1 MB): bodies of one character repeated.

const FILLERS = ['a', 'é', '€', '𝄞'] as const;
const arbFiller = fc
  .tuple(
    fc.constantFrom(...FILLERS),
    fc.oneof(
      fc.constantFrom(OUTPUT_LIMIT_BYTES - 1, OUTPUT_LIMIT_BYTES, OUTPUT_LIMIT_BYTES + 1),
      fc.integer({ min: 60_000, max: 1_100_000 }),
    ),
  )
  .map(([char, bytes]) => char.repeat(Math.max(1, Math.floor(bytes / Buffer.byteLength(char)))));

/** Runner contract 5: printed text over the limit is cut on a character boundary, with the note. */
function printedContent(text: string): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= OUTPUT_LIMIT_BYTES) return text;
  const char = text[0] === undefined ? 'a' : String.fromCodePoint(text.codePointAt(0)!);
  const kept = Math.floor(OUTPUT_LIMIT_BYTES / Buffer.byteLength(char));
  return char.repeat(kept) + truncationNote(OUTPUT_LIMIT_BYTES, bytes);
}

const arbHugeLine: fc.Arbitrary<LineItem> = fc
  .tuple(
    arbShape,
    arbFiller,
    fc.constantFrom(
      'no-op',
      'printf',
      'refused',
      'NUL',
      'truncated',
      'raw NUL',
      'not utf-8',
      'huge id' as const,
    ),
    fc.nat(),
  )
  .map(([shape, filler, how, n]): LineItem => {
    const size = `${Buffer.byteLength(filler)} bytes of ${String.fromCodePoint(filler.codePointAt(0)!)}`;
    const idle = `: '${filler}'`;
    switch (how) {
      case 'no-op':
        return toolUseLine(`huge no-op (${size})`, shape, idle, {
          result: 'output',
          id: shape.id,
          content: blankOutputText(0),
          isError: false,
        });
      case 'printf':
        return toolUseLine(`huge printf (${size})`, shape, `printf '%s' '${filler}'`, {
          result: 'output',
          id: shape.id,
          content: printedContent(filler),
          isError: false,
        });
      case 'refused': {
        const [variant, pattern] = BLOCKED_VARIANTS[n % BLOCKED_VARIANTS.length]!;
        return toolUseLine(`huge refused (${size})`, shape, `echo '${variant}' ${idle}`, {
          result: 'refused',
          id: shape.id,
          pattern,
        });
      }
      case 'NUL': {
        const at = n % (idle.length + 1);
        return toolUseLine(
          `huge with NUL at ${at} (${size})`,
          shape,
          `${idle.slice(0, at)}\u0000${idle.slice(at)}`,
          {
            result: 'no shell',
            id: shape.id,
          },
        );
      }
      case 'huge id': {
        const [variant, pattern] = BLOCKED_VARIANTS[n % BLOCKED_VARIANTS.length]!;
        return toolUseLine(`huge id (${size})`, { ...shape, id: filler }, `echo '${variant}'`, {
          result: 'refused',
          id: filler,
          pattern,
        });
      }
      default: {
        const text = render(toolUseObject({ ...shape, layout: 'compact' }, idle), 'compact');
        // Inside the filler, on a character boundary (a filler character may be two UTF-16 units).
        const unit = String.fromCodePoint(filler.codePointAt(0)!).length;
        const at = text.indexOf(`"command":": '`) + `"command":": '`.length + (n % 1000) * unit;
        const before = utf8(text.slice(0, at));
        const after = utf8(text.slice(at));
        const middle =
          how === 'truncated' ? undefined : how === 'raw NUL' ? Buffer.from([0]) : Buffer.from([0xff]);
        return {
          what: `huge ${how} (${size})`,
          body: middle === undefined ? before : Buffer.concat([before, middle, after]),
          end: '\n',
          expected: { result: 'invalid', ids: how === 'not utf-8' ? ['', shape.id] : [''] },
          command: idle,
        };
      }
    }
  });

// ---------------------------------------------------------------------------------------
// Batches.

/** Line endings: LF mostly, CRLF often, and a last line left open. */
function withEndings(items: LineItem[], crlf: readonly boolean[], openLast: boolean): LineItem[] {
  return items.map((item, i) => {
    const last = i === items.length - 1;
    // Without its LF, an empty last line is no line at all.
    if (last && openLast && item.body.length > 0) return { ...item, end: '' };
    return { ...item, end: crlf[i % Math.max(1, crlf.length)] ? '\r\n' : '\n' };
  });
}

/** Puts `runs` among `others` at the given places. */
function interleave<T>(others: readonly T[], runs: readonly T[], places: readonly number[]): T[] {
  const out = [...others];
  runs.forEach((r, i) => {
    out.splice((places[i] ?? 0) % (out.length + 1), 0, r);
  });
  return out;
}

const arbCheapLine: fc.Arbitrary<LineItem[]> = fc.oneof(
  { weight: 3, arbitrary: arbRefusedLine.map((l) => [l]) },
  { weight: 2, arbitrary: arbNulLine.map((l) => [l]) },
  { weight: 1, arbitrary: arbRestartLine.map((l) => [l]) },
  { weight: 5, arbitrary: arbWrongField.map((l) => [l]) },
  { weight: 5, arbitrary: arbBrokenText.map((l) => [l]) },
  { weight: 5, arbitrary: arbJunk },
  { weight: 1, arbitrary: arbDeepLine.map((l) => [l]) },
);

const arbEndings = fc.tuple(fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), fc.boolean());

const arbMixed: fc.Arbitrary<LineItem[]> = fc
  .tuple(
    fc.array(arbCheapLine, { maxLength: 10 }),
    // Most batches run nothing: a command under bwrap costs 20-40 ms, a bad line microseconds.
    fc.oneof(
      { weight: 7, arbitrary: fc.constant<LineItem[]>([]) },
      fc.array(arbRunLine, { minLength: 1, maxLength: 2 }),
    ),
    fc.array(fc.nat(), { maxLength: 2 }),
    arbEndings,
  )
  .map(([cheap, runs, places, [crlf, openLast]]) => {
    const items = interleave(cheap.flat(), runs, places);
    return withEndings(items.length > 0 ? items : [junk('empty line', new Uint8Array())], crlf, openLast);
  });

/** Thousands of tiny lines, ids numbered so that order shows. */
const FLOOD_LINES: readonly ((i: number) => LineItem)[] = [
  () => junk('empty', new Uint8Array()),
  () => junk('{}', utf8('{}')),
  () => junk('null', utf8('null')),
  (i) => junk('id only', utf8(`{"id":"f${i}"}`)),
  (i) => ({
    what: 'refused',
    body: utf8(`{"type":"tool_use","id":"f${i}","name":"bash","input":{"command":"echo 'mkfs'"}}`),
    end: '\n',
    expected: { result: 'refused', id: `f${i}`, pattern: 'mkfs' },
    command: "echo 'mkfs'",
  }),
  (i) => ({
    what: 'restart',
    body: utf8(`{"type":"tool_use","id":"f${i}","name":"bash","input":{"restart":true}}`),
    end: '\n',
    expected: { result: 'restarted', id: `f${i}` },
  }),
  (i) => ({
    ...junk('wrong name', utf8(`{"type":"tool_use","id":"f${i}","name":"sh","input":{"command":"true"}}`)),
    command: 'true',
  }),
];

const arbFlood: fc.Arbitrary<LineItem[]> = fc
  .tuple(fc.integer({ min: 1_000, max: 5_000 }), fc.nat(), fc.nat(), arbEndings)
  .map(([count, step, offset, [crlf, openLast]]) => {
    const pick = (i: number) => FLOOD_LINES[(i * (1 + (step % 5)) + offset) % FLOOD_LINES.length]!(i);
    return withEndings(
      Array.from({ length: count }, (_, i) => pick(i)),
      crlf,
      openLast,
    );
  });

const arbHugeBatch: fc.Arbitrary<LineItem[]> = fc
  .tuple(arbHugeLine, fc.array(arbCheapLine, { maxLength: 2 }), fc.nat(), arbEndings)
  .map(([huge, cheap, place, [crlf, openLast]]) =>
    withEndings(interleave(cheap.flat(), [huge], [place]), crlf, openLast),
  );

export function batchBytes(items: readonly LineItem[]): Uint8Array {
  return Buffer.concat(items.flatMap((item) => [item.body, utf8(item.end)]));
}

/** The lines of `bytes` by this surface's definition (see the top of this file). */
export function splitLines(bytes: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let at = bytes.indexOf(LF); at !== -1; at = bytes.indexOf(LF, start)) {
    const end = at > start && bytes[at - 1] === 0x0d ? at - 1 : at;
    lines.push(bytes.subarray(start, end));
    start = at + 1;
  }
  if (start < bytes.length) lines.push(bytes.subarray(start));
  return lines;
}

function arbFeed(bytes: Uint8Array): fc.Arbitrary<Feed> {
  const options: fc.Arbitrary<Feed>[] = [
    fc.constant({ how: 'whole' }),
    fc.constant({ how: 'at every line break' }),
    fc.array(fc.integer({ min: 1, max: Math.max(1, bytes.length - 1) }), { maxLength: 30 }).map((cuts) => ({
      how: 'cuts' as const,
      cuts,
    })),
  ];
  if (isUtf8(bytes)) options.push(fc.constant({ how: 'string' }));
  if (bytes.length <= 2_000) options.push(fc.constant({ how: 'bytewise' }));
  return fc.oneof(...options);
}

function feedChunks(bytes: Uint8Array, feed: Feed): (string | Uint8Array)[] {
  switch (feed.how) {
    case 'whole':
      return [bytes];
    case 'string':
      return [Buffer.from(bytes).toString('utf8')];
    case 'bytewise':
      return Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
    case 'cuts':
      return chunkBytes(bytes, feed.cuts);
    default:
      // Cut after every CR and LF, and so also between the two of a CRLF.
      return chunkBytes(
        bytes,
        interestingCuts(bytes).filter((i) => bytes[i - 1] === LF || bytes[i - 1] === 0x0d),
      );
  }
}

function shown(bytes: Uint8Array, max = 160): string {
  const text = JSON.stringify(Buffer.from(bytes.subarray(0, max)).toString('latin1'));
  return bytes.length > max ? `${text}... (${bytes.length} bytes)` : text;
}

function printable(c: RunnerCase): RunnerCase {
  return Object.assign(c, {
    [fc.toStringMethod]: () => {
      const lines = c.items
        .slice(0, 12)
        .map((item, i) => `  ${i}: ${item.what}: ${shown(item.body)} + ${JSON.stringify(item.end)}`);
      const more = c.items.length > 12 ? [`  ... ${c.items.length - 12} more lines`] : [];
      const feed = c.feed.how === 'cuts' ? `cuts ${fc.stringify(c.feed.cuts)}` : c.feed.how;
      return [
        `{${c.shape} batch of ${c.items.length} lines via ${c.via}, fed ${feed}, then a line that ${c.liveness}:`,
        ...lines,
        ...more,
        '}',
      ].join('\n');
    },
  });
}

export const arbRunnerCase: fc.Arbitrary<RunnerCase> = fc
  .tuple(
    fc.oneof(
      { weight: 96, arbitrary: arbMixed.map((items) => ({ shape: 'mixed' as const, items })) },
      { weight: 2, arbitrary: arbFlood.map((items) => ({ shape: 'flood' as const, items })) },
      { weight: 2, arbitrary: arbHugeBatch.map((items) => ({ shape: 'huge' as const, items })) },
    ),
    fc.noBias(fc.nat({ max: 199 })),
    fc.noBias(fc.nat({ max: 3 })),
  )
  .chain(([{ shape, items }, viaRoll, livenessRoll]) => {
    const bytes = batchBytes(items);
    return arbFeed(bytes).map((feed) =>
      printable({
        shape,
        items,
        feed,
        // A process costs a Node start-up and a probe (~0.3 s): one case in 200, small ones only.
        via: viaRoll === 0 && shape === 'mixed' ? 'process' : 'library',
        // A command costs 20-40 ms: after heavy batches always, after the others one time in 4.
        liveness: livenessRoll === 0 || shape !== 'mixed' ? 'runs' : 'answers',
      }),
    );
  });

// ---------------------------------------------------------------------------------------
// The oracle.

function fail(message: string): never {
  throw new FuzzViolation(message);
}

/** The case is what it claims to be: its lines split as declared, and nothing undeclared can run. */
function checkCase(c: RunnerCase): void {
  const lines = splitLines(batchBytes(c.items));
  if (lines.length !== c.items.length) {
    throw new Error(`generator bug: ${c.items.length} items make ${lines.length} lines`);
  }
  for (const [i, item] of c.items.entries()) {
    if (item.body.includes(LF)) throw new Error(`generator bug: line ${i} holds a LF`);
    const command = commandIn(item.body);
    if (command !== undefined && command !== item.command) {
      throw new Error(`generator bug: line ${i} carries an undeclared command ${JSON.stringify(command)}`);
    }
  }
}

function describeExpected(e: Expected): string {
  switch (e.result) {
    case 'output':
      return `tool_use_id ${JSON.stringify(e.id)}, is_error ${e.isError}, content ${JSON.stringify(e.content).slice(0, 200)}`;
    case 'restarted':
      return `tool_use_id ${JSON.stringify(e.id)}, is_error false, content ${JSON.stringify(restartText())}`;
    case 'refused':
      return `tool_use_id ${JSON.stringify(e.id)}, is_error true, the refusal of ${JSON.stringify(e.pattern)}`;
    case 'no shell':
      return `tool_use_id ${JSON.stringify(e.id)}, is_error true, content "Process execution error: ..."`;
    case 'invalid':
      return `tool_use_id one of ${JSON.stringify(e.ids)}, is_error true, content "Invalid tool_use input: ..."`;
  }
}

function keeps(e: Expected, r: BashToolResult): boolean {
  switch (e.result) {
    case 'output':
      return r.tool_use_id === e.id && r.is_error === e.isError && r.content === e.content;
    case 'restarted':
      return r.tool_use_id === e.id && !r.is_error && r.content === restartText();
    case 'refused':
      return r.tool_use_id === e.id && r.is_error && r.content === refusalText(e.pattern);
    case 'no shell':
      return r.tool_use_id === e.id && r.is_error && r.content.startsWith('Process execution error: ');
    case 'invalid':
      return e.ids.includes(r.tool_use_id) && r.is_error && r.content.startsWith('Invalid tool_use input: ');
  }
}

/** docs/runner.md: the result line is the tool_result block and nothing else. */
const RESULT_LINE = BashToolResult.strict();

/** The output text against the lines: one result line each, in order, each the right result. */
function judge(items: readonly LineItem[], output: string): void {
  if (output !== '' && !output.endsWith('\n'))
    fail(`the output does not end with a line break: ...${JSON.stringify(output.slice(-80))}`);
  const lines = output === '' ? [] : output.slice(0, -1).split('\n');
  if (lines.length !== items.length) {
    fail(`expected exactly one result line per input line: ${items.length} lines in, ${lines.length} out`);
  }
  for (const [i, item] of items.entries()) {
    const line = lines[i]!;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      fail(`result line ${i} is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
    }
    const result = RESULT_LINE.safeParse(parsed);
    if (!result.success) {
      fail(
        `result line ${i} is not a tool_result block and nothing else: ${JSON.stringify(line.slice(0, 200))}`,
      );
    }
    const r = result.data as BashToolResult;
    if (!keeps(item.expected, r)) {
      fail(
        `line ${i} (${item.what}: ${shown(item.body)}) expected ${describeExpected(item.expected)}; ` +
          `got tool_use_id ${JSON.stringify(r.tool_use_id).slice(0, 100)}, is_error ${r.is_error}, content ${JSON.stringify(r.content).slice(0, 300)}`,
      );
    }
  }
}

const LIVENESS: Record<RunnerCase['liveness'], LineItem> = {
  runs: {
    what: 'a valid line that runs',
    body: utf8('{"type":"tool_use","id":"toolu_alive","name":"bash","input":{"command":"echo alive"}}'),
    end: '\n',
    expected: { result: 'output', id: 'toolu_alive', content: 'alive\n', isError: false },
  },
  answers: {
    what: 'a valid line that is refused',
    body: utf8(`{"type":"tool_use","id":"toolu_alive","name":"bash","input":{"command":"echo 'mkfs'"}}`),
    end: '\n',
    expected: { result: 'refused', id: 'toolu_alive', pattern: 'mkfs' },
  },
};

// ---------------------------------------------------------------------------------------
// The two ways in.

type Serve = typeof serveJsonLines;

/** Serves the chunks to one `serve` call and judges its answer to `items`. */
async function viaLibrary(
  runner: BashRunner,
  serve: Serve,
  chunks: (string | Uint8Array)[],
  items: readonly LineItem[],
): Promise<void> {
  const written: string[] = [];
  const { lines, aborted } = await serve({
    runner,
    input: (async function* () {
      yield* chunks;
    })(),
    writeLine: (line) => void written.push(line),
  });
  for (const [i, line] of written.entries()) {
    if (!line.endsWith('\n') || line.indexOf('\n') !== line.length - 1) {
      fail(`writeLine call ${i} is not exactly one line: ${JSON.stringify(line.slice(0, 200))}`);
    }
  }
  judge(items, written.join(''));
  if (aborted) fail('serveJsonLines reported the input aborted; nothing aborted it');
  if (lines !== items.length) fail(`serveJsonLines counted ${lines} lines; the input has ${items.length}`);
}

/** The CLI next to this build: bin/wirecheck.js loads dist/, which is this code only when this code runs from dist/. */
const CLI = fileURLToPath(new URL('../../../bin/wirecheck.js', import.meta.url));
const RUNNING_FROM_BUILD = import.meta.url.includes('/dist/fuzz/');

async function viaProcess(cli: string, workdir: string, chunks: (string | Uint8Array)[]): Promise<string> {
  const child = spawn(
    process.execPath,
    [cli, 'run-bash', '--workdir', workdir, '--timeout', String(TIMEOUT_S)],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => err.push(d));
  child.stdin.on('error', () => {});
  const exited = new Promise<number | string>((resolve) => {
    child.on('error', (e) => resolve(e.message));
    child.on('close', (code, signal) => resolve(code ?? String(signal)));
  });
  for (const chunk of chunks) child.stdin.write(chunk);
  child.stdin.end();
  let timer: NodeJS.Timeout | undefined;
  const status = await Promise.race([
    exited,
    new Promise<'hang'>((resolve) => {
      timer = setTimeout(() => resolve('hang'), PROCESS_DEADLINE_MS);
    }),
  ]);
  clearTimeout(timer);
  if (status === 'hang') {
    child.kill('SIGKILL');
    await exited;
    fail(`wirecheck run-bash had not exited ${PROCESS_DEADLINE_MS} ms after its stdin closed`);
  }
  if (status !== 0) {
    const log = Buffer.concat(err).toString('utf8').slice(-600);
    fail(`wirecheck run-bash exited with ${status} (expected 0 when stdin closes); stderr: ${log}`);
  }
  return Buffer.concat(out).toString('utf8');
}

// ---------------------------------------------------------------------------------------
// The surface.

export interface RunnerJsonLinesOptions {
  /** The JSON Lines service under test (default: `serveJsonLines`); a test passes a broken one. */
  serve?: Serve;
  /**
   * The `wirecheck` program for the process cases. Default: bin/wirecheck.js when this code
   * runs from the build it loads; otherwise the process cases go through the library.
   */
  cli?: string | undefined;
  /** Send every small case through the process (for a test of that path). */
  allThroughProcess?: boolean;
}

export function runnerJsonLinesSurface(options: RunnerJsonLinesOptions = {}): FuzzSurface<RunnerCase> {
  const serve = options.serve ?? serveJsonLines;
  const cli = 'cli' in options ? options.cli : RUNNING_FROM_BUILD ? CLI : undefined;
  return {
    name: 'runner-json-lines',
    description:
      "bash runner's JSON Lines input (serveJsonLines, some cases through wirecheck run-bash): malformed lines, wrong types, huge and NUL-laden commands, CRLF, invalid UTF-8, thousands of lines at once each get exactly one result, in order, the right one, and the runner still answers a valid line",
    async open() {
      const base = await mkdtemp(join(tmpdir(), 'wirecheck-fuzz-runner-'));
      // mkdtemp makes 0700; as root the runner's commands run as uid 65534, which must pass through.
      await chmod(base, 0o755);
      let runner: BashRunner;
      try {
        runner = await createBashRunner({ workdir: join(base, 'wd'), timeoutS: TIMEOUT_S });
      } catch (e) {
        await rm(base, { recursive: true, force: true });
        throw e;
      }
      const answerAfter = async (liveness: RunnerCase['liveness']) => {
        const item = LIVENESS[liveness];
        try {
          await viaLibrary(runner, serve, [batchBytes([item])], [item]);
        } catch (e) {
          fail(`after this batch the runner no longer answers ${item.what}: ${(e as Error).message}`);
        }
      };
      return {
        arbitrary: arbRunnerCase,
        async check(c) {
          checkCase(c);
          const bytes = batchBytes(c.items);
          const chunks = feedChunks(bytes, c.feed);
          const throughProcess =
            cli !== undefined && c.shape === 'mixed' && (c.via === 'process' || options.allThroughProcess);
          if (throughProcess) {
            judge(c.items, await viaProcess(cli, join(base, 'process-wd'), chunks));
          } else {
            await viaLibrary(runner, serve, chunks, c.items);
          }
          await answerAfter(c.liveness);
        },
        async close() {
          try {
            await runner.close();
          } finally {
            await rm(base, { recursive: true, force: true });
          }
        },
      };
    },
  };
}

export const runnerJsonLines = runnerJsonLinesSurface();
