import { HarnessBug } from './check.js';

/**
 * The messages of the errors the JavaScript engine throws at a program that misuses a value
 * (V8's wording). Check code meets them only when it reads what it did not validate or
 * misuses its own values: a bug of wirecheck either way, never a verdict on the target.
 */
const PROGRAMMER_TYPE_ERRORS: readonly RegExp[] = [
  /^Cannot (read|set) properties of (undefined|null)/,
  /^Cannot destructure /,
  / is not (a function|a constructor|iterable)\b/,
  /^Cannot convert undefined or null to object$/,
  /^Cannot convert object to primitive value$/,
  /^Cannot use 'in' operator to search for /,
  /^Cannot convert a BigInt value to a number$/,
  /^Cannot mix BigInt and other types/,
  /^Do not know how to serialize a BigInt$/,
  /^Converting circular structure to JSON/,
  /^Assignment to constant variable\.$/,
  /^Cannot assign to read only property /,
  /^Cannot add property .*, object is not extensible$/,
  /^Cannot create property /,
];

/** Errors a check may throw on its own that no target can cause except through a bug of wirecheck. */
const PROGRAMMER_RANGE_ERRORS: readonly RegExp[] = [
  // Unbounded recursion or size: what a target sent reached code that has no bound for it.
  /^Maximum call stack size exceeded$/,
  /^Invalid string length$/,
  /^Invalid array length$/,
];

/** Whether an error thrown in a check is the engine's answer to a misused value (see above). */
export function isProgrammerError(e: unknown): e is Error {
  if (!(e instanceof Error)) return false;
  // Network and stream failures (undici's `fetch failed`, `terminated`) are TypeErrors with a cause.
  if (e.cause !== undefined) return false;
  if (e instanceof ReferenceError) return true;
  if (e instanceof TypeError) return PROGRAMMER_TYPE_ERRORS.some((p) => p.test(e.message));
  if (e instanceof RangeError) return PROGRAMMER_RANGE_ERRORS.some((p) => p.test(e.message));
  return false;
}

/**
 * The HarnessBug a thrown error stands for: itself, or a programmer error, named with the first
 * place of wirecheck's own code it came from so that a user's report finds it; else undefined.
 */
export function harnessBugOf(e: unknown): HarnessBug | undefined {
  if (e instanceof HarnessBug) return e;
  if (!isProgrammerError(e)) return undefined;
  const where = ownFrame(e.stack);
  return new HarnessBug(`${e.name}: ${e.message}${where === undefined ? '' : ` (at ${where})`}`, {
    cause: e,
  });
}

/** The first stack frame in wirecheck's own files, as `file:line:column` from its `src/`, `dist/` (or a test's `test/`). */
function ownFrame(stack: string | undefined): string | undefined {
  for (const line of (stack ?? '').split('\n').slice(1, 40)) {
    // wirecheck installed as a package runs from node_modules/wirecheck: its frames are its own.
    if (/node_modules[/\\](?!wirecheck[/\\])/.test(line)) continue;
    const at = /[/\\]((?:src|dist|test)[/\\][^():]+:\d+:\d+)\)?\s*$/.exec(line);
    if (at?.[1] !== undefined) return at[1];
  }
  return undefined;
}
