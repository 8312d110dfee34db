import type { AllowedBecause, CallPolicy } from './call-policy.js';
import type { CallToolsOption } from './target.js';

// The one gate every tools/call of the suite passes: the peer of every session the suite opens
// asks it before a tools/call leaves (peer.ts, recordSent), whatever check or helper built the
// message. The checks pick their tools from the policy's allowed ones, so a refusal there is a
// bug of wirecheck and stops the run rather than call a tool the user did not allow. A saved
// counterexample (--replay) is data from a file, not a choice of the suite's: it is asked here
// first (savedCallRefusal), and a refusal is a skip that says which flag would allow it.

/** What the peer asks before it sends a tools/call, and tells once it is sent. */
export interface CallGate {
  /** Why a tools/call of `name` may not be sent, or undefined when it may. */
  refusal(name: unknown): string | undefined;
  record(name: string): void;
}

/**
 * Most characters of JSON a replayed case's arguments may hold. The generator refuses a tool
 * whose smallest arguments pass 65,536 values (schema-arbitrary.ts), and fast-check's default
 * size makes a string or an array at most twice its least length and 10 more; a value takes
 * at most 24 characters of JSON (a double; a code point escaped as a surrogate pair takes 12). 256 for each
 * is well past what it makes, so a larger saved case was not made by it, and a file cannot
 * send a tool 100 MB.
 */
export const MAX_SAVED_ARGUMENT_CHARS = 65_536 * 256;

/** Tool names shown in one message; a server may list thousands. */
const SHOWN = 12;
/** Characters of one name shown (a file or a server may give a name of any length). */
const NAME_CHARS = 80;

function shownName(name: string): string {
  return name.length > NAME_CHARS ? `${name.slice(0, NAME_CHARS)}...` : name;
}

function shownNames(names: readonly string[]): string {
  const shown = names.slice(0, SHOWN).map(shownName).join(', ');
  return names.length > SHOWN ? `${shown}, ... (${names.length} tools)` : shown;
}

/** The --call-tools value that would allow `name` too, as the user would type it. */
function widened(option: CallToolsOption | undefined, name: string): string {
  const quoted = /^[\w.-]+$/.test(name) ? name : JSON.stringify(shownName(name));
  if (option === undefined || typeof option === 'string') return `--call-tools ${quoted}`;
  return `--call-tools ${[...option, quoted].join(',')}`;
}

/** Why the policy keeps a listed tool from being called, in the words of the flag that decided it. */
function notAllowedBecause(option: CallToolsOption | undefined): string {
  if (option === undefined) {
    return "the default call policy does not allow (it is not annotated readOnlyHint: true, nor a tool of wirecheck's reference or mock servers)";
  }
  if (option === 'none') return '--call-tools none does not allow';
  if (option === 'all') return '--call-tools all does not allow';
  return `--call-tools does not allow (it names ${shownNames(option)})`;
}

/**
 * Why a call the policy did not make may not be sent: a tool the server does not list, or one
 * the policy keeps uncalled. `what` names the call ("the counterexample calls").
 */
export function notAllowedReason(policy: CallPolicy, name: string, what: string): string | undefined {
  if (policy.allowed.some((t) => t.name === name)) return undefined;
  const shown = shownName(name);
  if (policy.refused.some((t) => t.name === name)) {
    return `${what} ${shown}, which ${notAllowedBecause(policy.option)}; to allow it, add ${widened(policy.option, name)}`;
  }
  if (policy.unread.names.includes(name)) {
    return `${what} ${shown}, which the server lists with an entry the Tool schema refuses (tools.list-shape judges it): no policy allows a tool it cannot read, so it was not sent`;
  }
  const listed = [...policy.allowed, ...policy.refused].map((t) => t.name);
  const lists = listed.length === 0 ? 'it lists no tools' : `it lists: ${shownNames(listed)}`;
  return `${what} ${shown}, which the server does not list (${lists}): only listed tools that --call-tools allows are called, so it was not sent`;
}

/**
 * Why a saved case of generated-arguments (a --replay file's {tool, args}) may not be sent,
 * or undefined when it may: it must be shaped as the generator makes it, name a listed tool
 * the policy allows, and hold arguments no larger than the generator makes.
 */
export function savedCallRefusal(policy: CallPolicy, value: unknown): string | undefined {
  const { tool, args } = (typeof value === 'object' && value !== null ? value : {}) as {
    tool?: unknown;
    args?: unknown;
  };
  if (typeof tool !== 'string' || typeof args !== 'object' || args === null || Array.isArray(args)) {
    const got = JSON.stringify(value)?.slice(0, 200) ?? String(value);
    return `the counterexample is not a call as the generator makes one (expected {"tool": a name, "args": an object}, got ${got}): nothing was sent`;
  }
  const refused = notAllowedReason(policy, tool, 'the counterexample calls');
  if (refused !== undefined) return refused;
  const chars = JSON.stringify(args).length;
  if (chars > MAX_SAVED_ARGUMENT_CHARS) {
    return `the counterexample's arguments for ${shownName(tool)} are ${chars} characters of JSON, more than the ${MAX_SAVED_ARGUMENT_CHARS} the generator ever makes: it was not made by this generator, and was not sent`;
  }
  return undefined;
}

/** How a reason of the policy reads in the report. */
const BECAUSE: Record<AllowedBecause, string> = {
  reference: "a tool of wirecheck's reference server",
  mock: "a tool of wirecheck's mock server",
  'read-only': 'readOnlyHint: true',
  named: 'named in --call-tools',
  all: '--call-tools all',
};

/** The suite's gate (one per run): the policy's allowed tools, the unknown-tool probe's names, and the calls sent. */
export class CallLedger implements CallGate {
  private policy: CallPolicy | undefined;
  /** Names the unknown-tool probe calls: none is listed (probeName makes sure). */
  private readonly probes = new Set<string>();
  private readonly counts = new Map<string, number>();

  /** The run's policy, once made: until then no listed tool may be called. */
  usePolicy(policy: CallPolicy): void {
    this.policy = policy;
  }

  /**
   * A name for a call of a tool the server does not offer: `base`, or `base-N` for the first N
   * that none of `listed` holds, so that the probe never calls a listed tool. The same listing
   * gives the same name every run.
   */
  probeName(base: string, listed: ReadonlySet<string>): string {
    let name = base;
    for (let n = 2; listed.has(name) || this.isListed(name); n++) name = `${base}-${n}`;
    this.probes.add(name);
    return name;
  }

  private isListed(name: string): boolean {
    const policy = this.policy;
    if (policy === undefined) return false;
    return policy.allowed.some((t) => t.name === name) || policy.refused.some((t) => t.name === name);
  }

  refusal(name: unknown): string | undefined {
    if (typeof name !== 'string') {
      return `its name is ${JSON.stringify(name)?.slice(0, 80) ?? String(name)}, not a string, so no policy can allow it`;
    }
    if (this.probes.has(name) && !this.isListed(name)) return undefined;
    const policy = this.policy;
    if (policy === undefined) return `${shownName(name)} was to be called before the call policy was made`;
    return notAllowedReason(policy, name, 'it calls');
  }

  record(name: string): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }

  /** How many tools/call of each name were sent so far. */
  calls(): ReadonlyMap<string, number> {
    return this.counts;
  }

  /**
   * "called: echo (readOnlyHint: true, 45 calls); allowed but not called: add": the tools
   * called so far with why they could be, and the allowed ones not called. Empty when the
   * policy was never made.
   */
  calledNote(): string {
    const policy = this.policy;
    if (policy === undefined) return '';
    const called = policy.allowed.filter((t) => (this.counts.get(t.name) ?? 0) > 0);
    const idle = policy.allowed.filter((t) => (this.counts.get(t.name) ?? 0) === 0);
    const each = called.slice(0, SHOWN).map((t) => {
      const n = this.counts.get(t.name) ?? 0;
      const because = policy.because.get(t.name);
      return `${shownName(t.name)} (${because === undefined ? 'allowed' : BECAUSE[because]}, ${n} call${n === 1 ? '' : 's'})`;
    });
    const more = called.length > SHOWN ? `, ... (${called.length} tools)` : '';
    const parts = [called.length === 0 ? 'called: no listed tool' : `called: ${each.join(', ')}${more}`];
    if (idle.length > 0) parts.push(`allowed but not called: ${shownNames(idle.map((t) => t.name))}`);
    const probes = [...this.probes].filter((p) => (this.counts.get(p) ?? 0) > 0);
    if (probes.length > 0) {
      parts.push(
        `called as a tool the server does not list (tools.unknown-tool-rejected): ${probes.map(shownName).join(', ')}`,
      );
    }
    return parts.join('; ');
  }
}
