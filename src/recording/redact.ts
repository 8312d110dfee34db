/**
 * Redaction of credentials, the one module for everything wirecheck writes down: the
 * messages recording proxy, the tool-session recorders, HAR import and the journals of the
 * mocks. Two rules:
 *
 * - by name: a header, query parameter, JSON field, environment variable or flag whose
 *   name holds a credential word as one of its parts (`x-api-key`, `access_token`,
 *   `clientSecret`, `Authorization`, `Set-Cookie`, `API_KEY`, `--token`) has its value
 *   replaced. Parts, not substrings: `max_tokens`, `input_tokens` and `keyword` are content.
 * - by value: a known secret (the key the client presented, a key given in the
 *   environment) is replaced wherever it appears, in any header, body or text, including
 *   where an upstream echoed it back.
 */

import type { GivenHeader } from '../protocol/header-option.js';
import { mapJsonValue } from '../protocol/json/map-values.js';

/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]';

/** Name parts that mark a credential. Plurals are left out on purpose: `tokens` counts tokens. */
const SECRET_WORDS = new Set([
  'key',
  'apikey',
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'credential',
  'credentials',
  'authorization',
  'auth',
  'cookie',
]);

/** One-word compounds: `apikey`, `accesstoken`, `clientsecret`, `privatekey`... */
const SECRET_COMPOUND =
  /^(api|access|refresh|auth|id|session|client|private|secret|bearer|csrf|xsrf|app|master|signing|security)(key|token|secret|password)$/;

/** The parts of a name: split at `-`, `_`, `.`, spaces and lower-to-upper case changes. */
function partsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((p) => p !== '');
}

/** Names seen before and their verdict: header names repeat on every request. */
const verdicts = new Map<string, boolean>();
const VERDICTS_KEPT = 4096;

/** Whether a header, parameter, field, variable or flag of this name holds a credential. */
export function isSecretName(name: string): boolean {
  const known = verdicts.get(name);
  if (known !== undefined) return known;
  let secret = false;
  for (const part of partsOf(name)) if (SECRET_WORDS.has(part) || SECRET_COMPOUND.test(part)) secret = true;
  if (verdicts.size >= VERDICTS_KEPT) verdicts.clear();
  verdicts.set(name, secret);
  return secret;
}

/** Shorter values are not scrubbed from free text: they would hit ordinary words. */
export const MIN_SECRET_LENGTH = 8;

/** The value of a credential header as written down: the scheme of `Authorization` is kept (`Bearer [redacted]`). */
function redactedValue(value: string): string {
  const scheme = /^(Bearer|Basic|Digest|Token|Negotiate|ApiKey)\s+\S/i.exec(value.trim())?.[1];
  return scheme === undefined ? REDACTED : `${scheme} ${REDACTED}`;
}

/**
 * The secret values of credential-named entries (headers, query parameters, environment
 * variables), and the credential after a scheme (`Bearer X`: X too), longest first so a
 * whole value is replaced before a part of it.
 */
export function secretsOf(entries: Readonly<Record<string, string | string[] | undefined>>): string[] {
  const out = new Set<string>();
  for (const name in entries) {
    const raw = entries[name];
    if (raw === undefined || !isSecretName(name)) continue;
    if (typeof raw === 'string') addSecret(out, raw);
    else for (const value of raw) addSecret(out, value);
  }
  return sortSecrets(out);
}

function addSecret(out: Set<string>, value: string): void {
  const v = value.trim();
  if (v.length < MIN_SECRET_LENGTH) return;
  out.add(v);
  // `Bearer X`: X alone too.
  if (v.indexOf(' ') < 0 && v.indexOf('\t') < 0) return;
  const credential = /^\S+\s+(\S+)$/.exec(v)?.[1];
  if (credential !== undefined && credential.length >= MIN_SECRET_LENGTH) out.add(credential);
}

function sortSecrets(secrets: Set<string>): string[] {
  const list = [...secrets];
  return list.length < 2 ? list : list.sort((a, b) => b.length - a.length);
}

/** Several secret lists as one, longest first, short values dropped. */
export function mergeSecrets(...lists: readonly (readonly (string | undefined)[])[]): string[] {
  const out = new Set<string>();
  for (const list of lists) for (const v of list) if (v !== undefined) addSecret(out, v);
  return sortSecrets(out);
}

/** The length of the shortest secret (text shorter than it holds none). */
function shortest(secrets: readonly string[]): number {
  let min = Number.POSITIVE_INFINITY;
  for (const s of secrets) if (s.length < min) min = s.length;
  return min;
}

/**
 * `text` with every occurrence of each secret replaced by REDACTED (occurrences that overlap
 * or touch become one), written as it is or encoded (encodedForms, decodedEscapes): the text
 * comes from a target, and split() on a long repetitive secret is not linear in it, where
 * scrubPrefix is.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  return scrubPrefix(text, secrets, text.length);
}

/** Longest start of a secret handed to String.indexOf, whose worst case stays linear for patterns this short. */
const NATIVE_PROBE = 64;

/**
 * How many characters one character of a secret takes at most in the encodings scrubbed:
 * `%E2%82%AC`, three percent-encoded UTF-8 bytes (`\\u20ac` takes 7, base64 under 4).
 */
const ENCODED_REACH = 9;

/**
 * How much of a text of `length` code units scrubPrefix searches: `keep`, plus room for a
 * secret begun just before the cut, however encoded.
 */
export function scrubWindow(length: number, secrets: readonly string[], keep: number): number {
  let longest = 0;
  for (const s of secrets) if (s.length > longest) longest = s.length;
  return Math.min(length, keep + Math.max(0, ENCODED_REACH * longest - 1));
}

/**
 * The first `keep` UTF-16 code units of `text`, with every occurrence of a secret that
 * begins before the cut replaced by REDACTED, whole even where it runs past the cut: a
 * journal that keeps a megabyte of a 32 MiB body searches that megabyte (scrubWindow), not
 * the body, and no first part of a secret cut in two is kept. Every occurrence is found,
 * overlapping ones too, and they are replaced together, so secrets that overlap (or a secret
 * that overlaps itself) leave no fragment. A secret is found as written and encoded as a
 * target may echo it: JSON's `\uXXXX` escapes (some characters or all, behind any number of
 * backslashes: JSON quoted in JSON), percent-encoding, and base64 (encodedForms).
 */
export function scrubPrefix(text: string, secrets: readonly string[], keep: number): string {
  // Nothing to find: decoding the escapes of a text of megabytes would cost seconds for nothing.
  if (!secrets.some((s) => s !== '')) return text.slice(0, keep);
  const window = text.slice(0, scrubWindow(text.length, secrets, keep));
  const edges = coverage(window, textPatterns(secrets), keep);
  return edges === undefined ? window.slice(0, keep) : replaceCovered(window, edges, keep);
}

/**
 * What a text is searched for: `literal`, strings found as they stand (a secret and its
 * encodedForms); `decoded`, strings found once escapes are decoded (decodedEscapes).
 */
export interface SecretPatterns {
  readonly literal: readonly string[];
  readonly decoded: readonly string[];
  /** The longest text an occurrence of one of them may take, however encoded. */
  readonly reach: number;
}

/** The patterns of secrets in a text (UTF-16, as decoded). */
export function textPatterns(secrets: readonly string[]): SecretPatterns {
  const literal = new Set<string>();
  const decoded: string[] = [];
  let reach = 0;
  for (const s of secrets) {
    if (s === '') continue;
    for (const form of encodedForms(s)) literal.add(form);
    decoded.push(s);
    reach = Math.max(reach, ENCODED_REACH * s.length);
  }
  return { literal: [...literal], decoded, reach };
}

/**
 * The patterns of secrets in bytes read as latin1 (one character a byte, so that where a
 * pattern is found is where its bytes are): a secret as its UTF-8 bytes, its encoded forms
 * (all ASCII), and, decoded, both its UTF-8 bytes (raw or percent-encoded) and its characters
 * (what `\uXXXX` escapes of all its non-ASCII characters decode to).
 */
export function bytePatterns(secrets: readonly string[]): SecretPatterns {
  const literal = new Set<string>();
  const decoded = new Set<string>();
  let reach = 0;
  for (const s of secrets) {
    const bytes = Buffer.from(s, 'utf8').toString('latin1');
    if (bytes.length < MIN_SECRET_LENGTH) continue;
    for (const form of encodedForms(s)) literal.add(form === s ? bytes : form);
    decoded.add(bytes).add(s);
    reach = Math.max(reach, ENCODED_REACH * s.length, bytes.length);
  }
  return { literal: [...literal], decoded: [...decoded], reach };
}

/**
 * Where in `window` occurrences of `patterns` that begin before `keep` lie: +1 where one
 * begins, -1 where it ends (covered where the running sum is above zero); undefined when
 * there are none. An occurrence written with escapes covers the escapes it was decoded from.
 */
export function coverage(window: string, patterns: SecretPatterns, keep: number): Int32Array | undefined {
  let edges: Int32Array | undefined;
  for (const s of patterns.literal) {
    // A native search settles the usual case, a secret that is not there, at once.
    const first = s === '' ? -1 : window.indexOf(s.slice(0, NATIVE_PROBE));
    if (first === -1 || first >= keep) continue;
    edges ??= new Int32Array(window.length + 1);
    markOccurrences(window, s, first, keep, edges);
  }
  const escaped = decodedEscapes(window, patterns);
  if (escaped !== undefined) {
    const { decoded, from } = escaped;
    // Where decoded characters that begin before the cut end.
    let before = 0;
    while (before < decoded.length && from[before]! < keep) before++;
    let found: Int32Array | undefined;
    for (const s of patterns.decoded) {
      const first = s === '' ? -1 : decoded.indexOf(s.slice(0, NATIVE_PROBE));
      if (first === -1 || first >= before) continue;
      found ??= new Int32Array(decoded.length + 1);
      markOccurrences(decoded, s, first, before, found);
    }
    if (found !== undefined) {
      edges ??= new Int32Array(window.length + 1);
      // Each covered run of the decoded text covers the escapes it was decoded from.
      for (let i = 0, depth = 0, start = 0; i < found.length; i++) {
        if (found[i] === 0) continue;
        const was = depth;
        depth += found[i]!;
        if (was === 0 && depth > 0) start = i;
        else if (was > 0 && depth === 0) {
          edges[from[start]!]! += 1;
          edges[from[i]!]! -= 1;
        }
      }
    }
  }
  return edges;
}

/** The covered runs of `edges` (see coverage), as [start, end) pairs in order. */
export function coveredRuns(edges: Int32Array): [number, number][] {
  const runs: [number, number][] = [];
  for (let i = 0, depth = 0, start = 0; i < edges.length; i++) {
    const step = edges[i]!;
    if (step === 0) continue;
    const was = depth;
    depth += step;
    if (was === 0 && depth > 0) start = i;
    else if (was > 0 && depth === 0) runs.push([start, i]);
  }
  return runs;
}

/**
 * Where an escape that the end of `text` cuts short begins (what follows may complete it):
 * a run of backslashes, then `u` and up to three hex digits or nothing; or `%` and up to one
 * of 0-7. -1 where the end cuts none. Read back from the end: a pattern unanchored at its
 * start tries each backslash of a long run to its end, 4 s for 80,000 of them.
 */
export function openEscapeAt(text: string): number {
  const end = text.length;
  const last = text.charCodeAt(end - 1);
  if (last === 0x25) return end - 1;
  if (last >= 0x30 && last <= 0x37 && text.charCodeAt(end - 2) === 0x25) return end - 2;
  let hex = 0;
  while (hex < 4 && hex < end && isHexDigit(text.charCodeAt(end - 1 - hex))) hex++;
  // The backslashes end where a `u` and its digits begin, or at the end.
  let run = hex < 4 && text.charCodeAt(end - 1 - hex) === 0x75 ? end - 1 - hex : end;
  const after = run;
  while (run > 0 && text.charCodeAt(run - 1) === 0x5c) run--;
  return run < after ? run : -1;
}

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/**
 * Where in `text` an occurrence of `patterns` could still begin, were more text to follow:
 * the start of its longest end that begins a pattern (as it stands or decoded) or an escape
 * cut short; `text.length` when no end does, and nothing before it need be kept.
 */
export function pendingFrom(text: string, patterns: SecretPatterns): number {
  let from = text.length;
  for (const s of patterns.literal) from = Math.min(from, text.length - beginningAtEnd(text, s));
  const open = openEscapeAt(text);
  if (open !== -1) from = Math.min(from, open);
  const escaped = decodedEscapes(text, patterns);
  const decoded = escaped?.decoded ?? text;
  for (const s of patterns.decoded) {
    const k = beginningAtEnd(decoded, s);
    if (k > 0)
      from = Math.min(from, escaped === undefined ? text.length - k : escaped.from[decoded.length - k]!);
  }
  return from;
}

/** The length of the longest end of `text` that is a beginning of `pattern`, shorter than it (Knuth-Morris-Pratt). */
function beginningAtEnd(text: string, pattern: string): number {
  if (pattern.length < 2) return 0;
  const border = bordersOf(pattern);
  let k = 0;
  for (let i = Math.max(0, text.length - pattern.length + 1); i < text.length; i++) {
    const c = text.charCodeAt(i);
    while (k > 0 && pattern.charCodeAt(k) !== c) k = border[k - 1]!;
    if (pattern.charCodeAt(k) === c) k++;
    if (k === pattern.length) k = border[k - 1]!;
  }
  return k;
}

/** Encoded forms of secrets, by secret: the same few keys are scrubbed from every text of a run. */
const formsOf = new Map<string, readonly string[]>();
const FORMS_KEPT = 1024;

/**
 * A secret as written, and as a target may echo it in a form no decoding of escapes finds:
 * base64 of its UTF-8 bytes (`Authorization: Basic base64(user:key)`) at each of the three
 * places it may begin in a group of three bytes, the characters that stand for its bytes only
 * (the standard alphabet and the URL one); and percent-encoded whole, when it holds other
 * than ASCII (decodedEscapes reads ASCII only). Forms shorter than MIN_SECRET_LENGTH are
 * left out: they would hit ordinary text.
 */
function encodedForms(secret: string): readonly string[] {
  const known = formsOf.get(secret);
  if (known !== undefined) return known;
  const forms = new Set([secret]);
  if (secret.length >= MIN_SECRET_LENGTH) {
    const bytes = Buffer.from(secret, 'utf8');
    for (let offset = 0; offset < 3; offset++) {
      // Base64 character i stands for bits [6i, 6i + 6): those wholly within the secret's bytes.
      const first = Math.ceil((8 * offset) / 6);
      const end = Math.floor((8 * (offset + bytes.length)) / 6);
      const standard = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(3)])
        .toString('base64')
        .slice(first, end);
      forms.add(standard);
      forms.add(standard.replace(/\+/g, '-').replace(/\//g, '_'));
    }
    if (/[^\x00-\x7f]/.test(secret)) {
      const percent = encodeURIComponent(secret);
      forms.add(percent);
      forms.add(percent.replace(/%[0-9A-F]{2}/g, (p) => p.toLowerCase()));
    }
  }
  const list = [...forms].filter((f) => f === secret || f.length >= MIN_SECRET_LENGTH);
  if (formsOf.size >= FORMS_KEPT) formsOf.clear();
  formsOf.set(secret, list);
  return list;
}

/**
 * A JSON `\uXXXX` or `\/` escape behind one backslash or more (encoders that escape `/`
 * write a key holding one so), or `%XX` of an ASCII byte. Tried from the first backslash of
 * a run only: from each of a long run's it would be quadratic.
 */
/** The characters of `patterns`' decoded forms, worked out once per set of patterns. */
const alphabets = new WeakMap<SecretPatterns, Set<number>>();
function alphabetOf(patterns: SecretPatterns): Set<number> {
  let alphabet = alphabets.get(patterns);
  if (alphabet === undefined) {
    alphabet = new Set<number>();
    for (const s of patterns.decoded) for (let i = 0; i < s.length; i++) alphabet.add(s.charCodeAt(i));
    alphabets.set(patterns, alphabet);
  }
  return alphabet;
}

const ESCAPE = /(?<!\\)\\+(?:u([0-9A-Fa-f]{4})|(\/))|%([0-7][0-9A-Fa-f])/g;

/**
 * `text` with what stands for a character decoded: JSON's `\uXXXX` and `\/` escapes however many
 * backslashes precede them (a JSON text quoted in JSON doubles them), and percent-encoded
 * ASCII; `from[i]` is where decoded character i begins in `text`, `from[decoded.length]` its
 * end. Undefined when there is nothing to decode. A secret found in the decoded text was
 * written there with some or all of its characters escaped. With `patterns`, a percent escape
 * is decoded only where it stands for a character of theirs.
 */
function decodedEscapes(
  text: string,
  patterns?: SecretPatterns,
): { decoded: string; from: Int32Array } | undefined {
  if (text.indexOf('\\') === -1 && text.indexOf('%') === -1) return undefined;
  const inSecret = patterns === undefined ? undefined : alphabetOf(patterns);
  const parts: string[] = [];
  // Filled in place (a push per character into an array, then copied, took 4 s for 4.6M
  // characters); made at the first escape, and no longer than the text: no escape decodes
  // to more than one character.
  let from: Int32Array | undefined;
  let n = 0;
  let at = 0;
  for (const m of text.matchAll(ESCAPE)) {
    const char = m[2] ?? String.fromCharCode(Number.parseInt(m[1] ?? m[3]!, 16));
    // A `%` and two hex digits may be a percent escape or a `%` before a secret that begins
    // with them (`%0a1b...`): one that decodes to no character of a secret is read as written,
    // so the secret after it is found.
    if (m[3] !== undefined && inSecret !== undefined && !inSecret.has(char.charCodeAt(0))) continue;
    from ??= new Int32Array(text.length + 1);
    for (let i = at; i < m.index; i++) from[n++] = i;
    parts.push(text.slice(at, m.index), char);
    from[n++] = m.index;
    at = m.index + m[0].length;
  }
  if (from === undefined) return undefined;
  for (let i = at; i < text.length; i++) from[n++] = i;
  parts.push(text.slice(at));
  from[n++] = text.length;
  return { decoded: parts.join(''), from: from.subarray(0, n) };
}

/**
 * Mark in `edges` (+1 where it begins, -1 where it ends) each occurrence of `pattern` in
 * `text` that begins from `from` and before `before`, overlapping ones included.
 * Knuth-Morris-Pratt: linear in the two lengths whatever they hold, where String.indexOf is
 * not (a 16 KiB secret of one letter around a digit took V8 5 s to look for in 1 MiB of that
 * letter).
 */
function markOccurrences(
  text: string,
  pattern: string,
  from: number,
  before: number,
  edges: Int32Array,
): void {
  const m = pattern.length;
  const border = bordersOf(pattern);
  const end = Math.min(text.length, before + m - 1);
  for (let i = from, k = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    while (k > 0 && pattern.charCodeAt(k) !== c) k = border[k - 1]!;
    if (pattern.charCodeAt(k) === c) k++;
    if (k === m) {
      edges[i - m + 1]! += 1;
      edges[i + 1]! -= 1;
      k = border[m - 1]!;
    }
  }
}

/** Borders by pattern: the same few forms of the same keys are searched for in every chunk and delta. */
const bordersKept = new Map<string, Int32Array>();

/** For each prefix of `pattern`, the length of its longest proper prefix that is also its suffix. */
function bordersOf(pattern: string): Int32Array {
  const known = bordersKept.get(pattern);
  if (known !== undefined) return known;
  const border = new Int32Array(pattern.length);
  for (let i = 1, k = 0; i < pattern.length; i++) {
    const c = pattern.charCodeAt(i);
    while (k > 0 && pattern.charCodeAt(k) !== c) k = border[k - 1]!;
    if (pattern.charCodeAt(k) === c) k++;
    border[i] = k;
  }
  if (bordersKept.size >= FORMS_KEPT) bordersKept.clear();
  bordersKept.set(pattern, border);
  return border;
}

/** `window` up to `keep` with each covered run (see scrubPrefix) replaced by one REDACTED. */
function replaceCovered(window: string, edges: Int32Array, keep: number): string {
  const parts: string[] = [];
  let plainFrom = 0;
  let depth = 0;
  for (let i = 0; i < edges.length; i++) {
    const step = edges[i]!;
    if (step === 0) continue;
    const before = depth;
    depth += step;
    if (before === 0 && depth > 0) parts.push(window.slice(plainFrom, i), REDACTED);
    else if (before > 0 && depth === 0) plainFrom = i;
  }
  // Covered runs all begin before `keep`; the last may end after it, and then nothing follows.
  if (plainFrom < keep) parts.push(window.slice(plainFrom, keep));
  return parts.join('');
}

/**
 * `text` with every occurrence of each secret, written as it is or encoded (as scrubSecrets
 * finds them), replaced by a mask of the same length in bytes (`[redacted****]`): what
 * createChunkScrubber makes of the same bytes, for text that must stay equal to a scrubbed
 * stream (the messages of a recorded event stream).
 */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  const wanted = secrets.filter((s) => Buffer.byteLength(s) >= MIN_SECRET_LENGTH);
  if (wanted.length === 0) return text;
  const edges = coverage(text, textPatterns(wanted), text.length);
  if (edges === undefined) return text;
  const parts: string[] = [];
  let plain = 0;
  for (const [start, end] of coveredRuns(edges)) {
    parts.push(
      text.slice(plain, start),
      maskOf(Buffer.byteLength(text.slice(start, end))).toString('latin1'),
    );
    plain = end;
  }
  parts.push(text.slice(plain));
  return parts.join('');
}

/** Headers with credential ones redacted by name (the scheme of Authorization kept) and known secrets scrubbed from the rest. */
export function redactHeaders(
  headers: Readonly<Record<string, string>>,
  secrets: readonly string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  const min = shortest(secrets);
  for (const name in headers) {
    const value = headers[name]!;
    out[name] = isSecretName(name)
      ? redactedValue(value)
      : value.length < min
        ? value
        : scrubSecrets(value, secrets);
  }
  return out;
}

/**
 * A request target (`/v1/messages?key=X&beta=true`) with the values of credential-named
 * query parameters redacted and known secrets scrubbed; everything else, encoding
 * included, as it was.
 */
export function redactTarget(target: string, secrets: readonly string[] = []): string {
  const q = target.indexOf('?');
  if (q < 0) return scrubSecrets(target, secrets);
  const hash = target.indexOf('#', q);
  const query = target.slice(q + 1, hash < 0 ? undefined : hash);
  const params = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 0) return pair;
    return isSecretName(safeDecode(pair.slice(0, eq))) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
  });
  const rest = hash < 0 ? '' : target.slice(hash);
  return scrubSecrets(`${target.slice(0, q)}?${params.join('&')}${rest}`, secrets);
}

/** The values of credential-named query parameters of a request target, decoded. */
export function secretsOfTarget(target: string): string[] {
  const q = target.indexOf('?');
  if (q < 0) return [];
  const values: string[] = [];
  for (const pair of target
    .slice(q + 1)
    .split('#')[0]!
    .split('&')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && isSecretName(safeDecode(pair.slice(0, eq)))) {
      const raw = pair.slice(eq + 1);
      values.push(raw, safeDecode(raw.replace(/\+/g, ' ')));
    }
  }
  return mergeSecrets(values);
}

/** `text` percent-decoded, or as it is where it is no valid encoding. */
export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * A JSON value with the string values of credential-named fields redacted and known
 * secrets scrubbed from every string (keys included). Iterative: a request may nest
 * thousands of levels deep. Numbers and booleans stay (`token_count: 3` is no secret).
 */
export function redactBody(value: unknown, secrets: readonly string[] = []): unknown {
  return mapJsonValue(value, {
    string: (text) => scrubSecrets(text, secrets),
    key: (name) => scrubSecrets(name, secrets),
    member: (name, v) => (typeof v === 'string' && isSecretName(name) ? { value: REDACTED } : undefined),
  });
}

/**
 * The values of `--header`s that a printed command line does not show: a credential-named
 * header's, and any read from the environment (`${VAR}`). A value the command line shows is
 * no secret, and scrubbing it (`X-Client: wirecheck`) would garble messages.
 */
export function givenHeaderSecrets(headers: readonly GivenHeader[]): string[] {
  return headers.filter((h) => isSecretName(h.name) || h.given.includes('${')).map((h) => h.value);
}

/**
 * A scrubber of known secrets for a stream of byte chunks (an upstream response body),
 * keeping every byte offset and chunk boundary: a secret, written as it is or encoded as
 * scrubSecrets finds it (base64, `\uXXXX` and `\/` escapes, percent-encoding), is
 * overwritten by a mask of the same length (`[redacted*****]`). A secret split across chunks
 * is found because a chunk whose last bytes could begin one is held back until the bytes
 * after it settle whether they do; each chunk is searched with the bytes before it that such
 * a secret could begin in, and copied only when a secret is in it (the caller's chunk may
 * still be on its way to a client).
 */
export interface ChunkScrubber {
  /** Take `chunk`; returns the chunks before it that are now safe to keep, scrubbed, in order. */
  push(chunk: Buffer): Buffer[];
  /** The stream ended: the chunks still held, scrubbed. */
  end(): Buffer[];
  /**
   * The stream paused: the chunks still held, scrubbed, when no secret can begin at their end
   * (their last bytes are no beginning of one), so that what arrived is kept without waiting
   * for more; otherwise none.
   */
  idle(): Buffer[];
}

export function createChunkScrubber(secrets: readonly string[]): ChunkScrubber {
  const patterns = bytePatterns(secrets);
  if (patterns.literal.length === 0) return { push: (chunk) => [chunk], end: () => [], idle: () => [] };
  const overlap = patterns.reach - 1;
  const held = new HeldChunks();
  const needles = patterns.literal.map((form) => Buffer.from(form, 'latin1'));
  /** Mask each occurrence of a literal form in `bytes`, which lie at `at` in the stream. */
  /**
   * The chunks no secret can still reach into: those before the last bytes that could begin
   * one (written as it is or encoded), which is none as a rule (a stream's chunks end with
   * its frames), so that the fixture on disk lags the client by nothing a kill would lose.
   */
  const settled = (): Buffer[] => {
    const from = Math.max(held.start, held.end - overlap);
    return held.release(from + pendingFrom(held.read(from, held.end).toString('latin1'), patterns));
  };
  const maskNeedles = (bytes: Buffer, at: number): void => {
    const runs: [number, number][] = [];
    for (const needle of needles) {
      for (let i = bytes.indexOf(needle); i !== -1; i = bytes.indexOf(needle, i + 1))
        runs.push([i, i + needle.length]);
    }
    if (runs.length === 0) return;
    // Occurrences that overlap or touch are masked as one, as coverage would.
    const edges = new Int32Array(bytes.length + 1);
    for (const [a, b] of runs) {
      edges[a]! += 1;
      edges[b]! -= 1;
    }
    for (const [a, b] of coveredRuns(edges)) held.mask([[at + a, at + b]]);
  };

  return {
    push(chunk) {
      held.add(chunk);
      const from = Math.max(held.start, held.end - chunk.length - overlap);
      const start = held.end - chunk.length;
      // Where the bytes around the boundary hold no escape, a secret is there only as it
      // stands: searched where it lies, with no copy of a chunk that may be megabytes.
      const seam = held.read(from, Math.min(held.end, start + overlap));
      if (!mayHoldEscape(chunk) && !mayHoldEscape(seam)) {
        maskNeedles(seam, from);
        maskNeedles(chunk, start);
        return settled();
      }
      const window = held.read(from, held.end).toString('latin1');
      const edges = coverage(window, patterns, window.length);
      if (edges !== undefined) for (const [a, b] of coveredRuns(edges)) held.mask([[from + a, from + b]]);
      return settled();
    },
    end() {
      return held.release(held.end);
    },
    idle() {
      return settled();
    },
  };
}

/** Whether `bytes` may hold part of an escape decodedEscapes reads (`\\u`, `\\/`, `%`, or a backslash at an end). */
function mayHoldEscape(bytes: Buffer): boolean {
  return (
    bytes.includes('\\u') ||
    bytes.includes('\\/') ||
    bytes.includes('%') ||
    bytes[0] === 0x75 ||
    bytes[bytes.length - 1] === 0x5c
  );
}

/**
 * Chunks held back for scrubbing, addressed by their offset in the whole stream: read and
 * masked across their boundaries, copied before a first write (the caller may still be
 * sending them), released whole and in order.
 */
const RELEASED = Buffer.alloc(0);

export class HeldChunks {
  /** The chunks, those before `first` already released (dropped in bulk: shifting one by one is quadratic). */
  private chunks: { bytes: Buffer; start: number; own: boolean }[] = [];
  private first = 0;
  /** Where the first chunk held begins in the stream. */
  start = 0;
  /** Where the last chunk held ends: the bytes taken so far. */
  end = 0;

  add(bytes: Buffer): void {
    this.chunks.push({ bytes, start: this.end, own: false });
    this.end += bytes.length;
  }

  /** The index of the held chunk holding stream offset `at` (the first held if before, the last if after). */
  private indexAt(at: number): number {
    let lo = this.first;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.chunks[mid]!.start <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The held bytes from `from` to `to` (stream offsets). */
  read(from: number, to: number): Buffer {
    const parts: Buffer[] = [];
    for (let i = this.indexAt(from); i < this.chunks.length; i++) {
      const c = this.chunks[i]!;
      if (c.start >= to) break;
      const a = Math.max(from, c.start);
      const b = Math.min(to, c.start + c.bytes.length);
      if (a < b) parts.push(c.bytes.subarray(a - c.start, b - c.start));
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  /** The byte at stream offset `at` (held), or -1. */
  byteAt(at: number): number {
    if (at < this.start || at >= this.end) return -1;
    const c = this.chunks[this.indexAt(at)]!;
    return at < c.start + c.bytes.length ? c.bytes[at - c.start]! : -1;
  }

  /** Lay one mask (`[redacted***]`) over the bytes of `ranges` (stream offsets, in order), as if they were one run. */
  mask(ranges: readonly (readonly [number, number])[]): void {
    let total = 0;
    for (const [a, b] of ranges) total += b - a;
    const mask = maskOf(total);
    let k = 0;
    for (const [a, b] of ranges) {
      for (let i = this.indexAt(a); i < this.chunks.length; i++) {
        const c = this.chunks[i]!;
        if (c.start >= b) break;
        const from = Math.max(a, c.start);
        const to = Math.min(b, c.start + c.bytes.length);
        if (from >= to) continue;
        if (!c.own) {
          c.bytes = Buffer.from(c.bytes);
          c.own = true;
        }
        mask.copy(c.bytes, from - c.start, k + (from - a), k + (to - a));
      }
      k += b - a;
    }
  }

  /** The chunks that end by `upTo`, in order, no longer held; the last chunk only at the end of the stream. */
  release(upTo: number): Buffer[] {
    const out: Buffer[] = [];
    while (this.first < this.chunks.length) {
      const c = this.chunks[this.first]!;
      const last = this.first === this.chunks.length - 1;
      if (c.start + c.bytes.length > upTo || (last && upTo < this.end)) break;
      this.first++;
      this.start = c.start + c.bytes.length;
      out.push(c.bytes);
      // Not kept alive by the list: released chunks are the caller's to let go.
      c.bytes = RELEASED;
    }
    if (this.first > 1024 && this.first * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.first);
      this.first = 0;
    }
    return out;
  }
}

/** A same-length stand-in for a secret of `length` bytes. */
function maskOf(length: number): Buffer {
  const text =
    length >= REDACTED.length
      ? `${REDACTED.slice(0, -1)}${'*'.repeat(length - REDACTED.length)}]`
      : '*'.repeat(length);
  return Buffer.from(text);
}
