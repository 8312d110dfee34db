import { detach } from '../../protocol/clip.js';

/**
 * What a target sent on one channel, summed up within fixed memory: totals, the first bytes,
 * and for each kind of problem a count and the first occurrence. It is what a "no reply"
 * failure quotes instead of "nothing", and what tells a suite early that a target cannot
 * speak the protocol at all (a `cat`, a `yes`, a server started in the wrong mode).
 */

/**
 * - `not-json`: a line (stdio) or message event (SSE) that is not JSON;
 * - `too-deep`: JSON nested deeper than the reader's limit (refused before parsing);
 * - `not-jsonrpc`: JSON that is not a JSON-RPC message;
 * - `echo`: one of the harness's own messages sent back unchanged;
 * - `over-limit`: a line, frame or answer past the reader's size limit. Over stdio and SSE
 *   the reader stops, so it is the channel's fatal problem; over Streamable HTTP it ends
 *   only the one POST answer, so it is a problem like the others.
 */
export type WireProblemKind = 'not-json' | 'too-deep' | 'not-jsonrpc' | 'echo' | 'over-limit';

export interface WireProblem {
  readonly kind: WireProblemKind;
  /** How many times it happened. */
  readonly count: number;
  /** The first occurrence's first characters. */
  readonly first: string;
  /** What was wrong with the first occurrence (the parser's message, the limit and its value). */
  readonly detail: string;
}

export interface WireDiagnosis {
  /** `stdout` or `the stream`. */
  readonly source: string;
  /** Bytes that arrived on the source, framed or not. */
  readonly bytes: number;
  /** Its first bytes (200 at most), as text. */
  readonly firstBytes: string;
  /** Lines (stdio) or message events (SSE) received. */
  readonly units: number;
  /** Of those, JSON-RPC messages (echoes not counted). */
  readonly messages: number;
  /** Received items not kept for evidence once the channel's cap of items, or of markers, was reached (still counted and read). */
  readonly dropped: number;
  /** At most one entry per kind, in order of first occurrence. */
  readonly problems: readonly WireProblem[];
  /** Set when what the target sent made the channel stop reading: nothing can arrive any more. */
  readonly fatal: WireProblem | undefined;
  /** One sentence for a failure message, e.g. 'stdout carried 5 lines (10 bytes) and no JSON-RPC message: 5 not JSON (the first: "y")'. */
  readonly summary: string;
}

export interface WireVocabulary {
  /** `stdout`, `the stream`. */
  readonly source: string;
  /** `line`, `message event`. */
  readonly unit: string;
}

export const STDIO_WORDS: WireVocabulary = { source: 'stdout', unit: 'line' };
export const SSE_WORDS: WireVocabulary = { source: 'the stream', unit: 'message event' };

/** Characters of a first occurrence kept. */
const FIRST_CHARS = 200;
const FIRST_BYTES = 200;

const LABELS: Record<WireProblemKind, string> = {
  'not-json': 'not JSON',
  'too-deep': 'JSON nested too deep to read',
  'not-jsonrpc': 'JSON but not a JSON-RPC message',
  echo: "wirecheck's own messages sent back unchanged",
  'over-limit': 'past the size limit',
};

interface Tally {
  kind: WireProblemKind;
  count: number;
  first: string;
  detail: string;
}

/** Records what one channel received. Pure; every method is O(1) in memory. */
export class WireLog {
  private bytes = 0;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private units = 0;
  private messages = 0;
  private dropped = 0;
  private readonly tallies = new Map<WireProblemKind, Tally>();
  private fatalProblem: WireProblem | undefined;

  constructor(private readonly words: WireVocabulary = STDIO_WORDS) {}

  /** Raw bytes as they arrive, before framing. */
  bytesIn(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    if (this.headBytes < FIRST_BYTES) {
      const part = Buffer.from(chunk.subarray(0, FIRST_BYTES - this.headBytes));
      this.head.push(part);
      this.headBytes += part.length;
    }
  }

  /** A line or message event, whatever it holds. */
  unit(): void {
    this.units++;
  }

  /** A JSON-RPC message. */
  message(): void {
    this.messages++;
  }

  /** A received item not kept (the cap of kept items, or of markers, was reached). */
  drop(): void {
    this.dropped++;
  }

  problem(kind: WireProblemKind, text: string, detail: string): void {
    const tally = this.tallies.get(kind);
    if (tally !== undefined) tally.count++;
    else this.tallies.set(kind, { kind, count: 1, first: detach(text.slice(0, FIRST_CHARS)), detail });
  }

  /** The target sent something that ends the session (a line or frame past a limit); the first one counts. */
  fatal(kind: WireProblemKind, text: string, detail: string): void {
    this.problem(kind, text, detail);
    this.fatalProblem ??= { kind, count: 1, first: detach(text.slice(0, FIRST_CHARS)), detail };
  }

  /** Whether the fatal problem happened. */
  get stopped(): boolean {
    return this.fatalProblem !== undefined;
  }

  count(kind: WireProblemKind): number {
    return this.tallies.get(kind)?.count ?? 0;
  }

  diagnosis(): WireDiagnosis {
    const problems = [...this.tallies.values()].map((t) => ({ ...t }));
    const base = {
      source: this.words.source,
      bytes: this.bytes,
      firstBytes: Buffer.concat(this.head).toString('utf8'),
      units: this.units,
      messages: this.messages,
      dropped: this.dropped,
      problems,
      fatal: this.fatalProblem,
    };
    return { ...base, summary: summarize(base, this.words) };
  }
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}...` : text);
}

/** The sentence of a diagnosis. */
export function summarize(d: Omit<WireDiagnosis, 'summary'>, words: WireVocabulary): string {
  if (d.fatal !== undefined) {
    return `wirecheck stopped reading ${d.source}: ${d.fatal.detail}`;
  }
  const echoes = d.problems.find((p) => p.kind === 'echo');
  if (echoes !== undefined && d.messages === 0) {
    return `the server echoed the request back: it looks like \`cat\`, not a tool server (${plural(echoes.count, 'message')} of wirecheck came back unchanged, the first: ${quote(echoes.first)})`;
  }
  if (d.units === 0) {
    if (d.bytes === 0) return `nothing arrived on ${d.source}`;
    return `${d.source} carried ${plural(d.bytes, 'byte')} but no complete ${words.unit}, starting ${quote(d.firstBytes)}`;
  }
  const parts = [
    d.messages === 0 ? 'no JSON-RPC message' : plural(d.messages, 'JSON-RPC message'),
    ...d.problems.map(
      (p) =>
        `${p.count.toLocaleString('en-US')} ${LABELS[p.kind]} (the first: ${quote(p.first)}: ${p.detail})`,
    ),
  ];
  const kept = d.dropped > 0 ? `; ${plural(d.dropped, words.unit)} were read but not kept` : '';
  return `${d.source} carried ${plural(d.units, words.unit)} (${plural(d.bytes, 'byte')}): ${parts.join(', ')}${kept}`;
}

/**
 * A sentence when a channel shows that its target cannot speak the protocol at all,
 * undefined otherwise: reading stopped at a limit, the target echoes wirecheck's messages
 * back, or something arrived and none of it was a JSON-RPC message. For a suite's
 * preflight: after a request went unanswered, stop instead of repeating the wait per check.
 */
export function cannotSpeakProtocol(d: WireDiagnosis): string | undefined {
  if (d.fatal !== undefined) return d.summary;
  if (d.messages > 0) return undefined;
  if (d.problems.some((p) => p.kind === 'echo')) return d.summary;
  if (d.units > 0 || d.bytes > 0) return d.summary;
  return undefined;
}
