import type { Tool } from '../../protocol/mcp/index.js';
import { NO_UNREAD, type UnreadTools, unreadNote } from './listed-tools.js';
import type { CallToolsOption } from './target.js';

// Which tools of a server the suite may call. A tool server's tools can do anything (write
// files, send mail, spend money), and the suite calls tools with generated arguments: so
// by default it calls only tools it knows to be harmless, and the user opts in to the rest
// with --call-tools. Known harmless:
//   - wirecheck's reference server (`serve tools`): recognised by its serverInfo.name AND a
//     tool's name AND the tool's property names, so a user's own tool added to the reference
//     server (defineTool) is not taken for one of the reference's;
//   - wirecheck's mock tool servers (`serve mock-tools`): every tool of a scenario only
//     echoes or answers what the scenario scripts, so any tool of a server naming itself so;
//   - any tool annotated `annotations.readOnlyHint: true` (MCP 2025-03-26 tool annotations,
//     sent by many 2024-11-05 servers too): the server itself says the tool changes nothing.
// A server can lie about its name or its hints; that is a server attacking its own user, not
// a mistake, and out of what a default can guard against.

/** serverInfo.name of wirecheck's reference tool server (src/servers/tools/core.ts). */
export const REFERENCE_SERVER_NAME = 'wirecheck-reference-tools';
/** serverInfo.name of wirecheck's mock tool servers (src/mocks/tools/scenario.ts default). */
export const MOCK_SERVER_NAME = 'wirecheck-mock-tools';

/** The reference server's tools and their property names (a test holds this to src/servers/tools). */
export const REFERENCE_TOOL_PROPERTIES: Readonly<Record<string, readonly string[]>> = {
  diagnostic: ['verbose'],
  echo: ['text'],
  slow: ['ms'],
  fail: ['message'],
  add: ['a', 'b'],
};

export type AllowedBecause = 'reference' | 'mock' | 'read-only' | 'named' | 'all';

export interface CallPolicy {
  /** Tools the checks may call, each with why. */
  readonly allowed: readonly Tool[];
  readonly because: ReadonlyMap<string, AllowedBecause>;
  /** Listed tools no check calls. */
  readonly refused: readonly Tool[];
  /** The skip message for a check that would have called one of the refused tools. */
  readonly refusedNote: string | undefined;
  /** Listed tools no check sees: their entries are malformed (listed-tools.ts). */
  readonly unread: UnreadTools;
  /** The --call-tools the policy was made from (absent: the default), for messages naming the flag that would allow a tool. */
  readonly option?: CallToolsOption;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().every((v, i) => v === [...b].sort()[i]);
}

function isReferenceTool(tool: Tool): boolean {
  // Own keys only: a tool named "toString" is not one of the reference's.
  if (!Object.hasOwn(REFERENCE_TOOL_PROPERTIES, tool.name)) return false;
  const props = REFERENCE_TOOL_PROPERTIES[tool.name]!;
  return sameNames(Object.keys(tool.inputSchema.properties ?? {}), props);
}

function readOnly(tool: Tool): boolean {
  const annotations = (tool as { annotations?: unknown }).annotations;
  return (
    typeof annotations === 'object' &&
    annotations !== null &&
    (annotations as { readOnlyHint?: unknown }).readOnlyHint === true
  );
}

function why(
  tool: Tool,
  serverName: string | undefined,
  option: CallToolsOption | undefined,
): AllowedBecause | undefined {
  if (option === 'all') return 'all';
  if (option === 'none') return undefined;
  if (option !== undefined) return option.includes(tool.name) ? 'named' : undefined;
  if (serverName === MOCK_SERVER_NAME) return 'mock';
  if (serverName === REFERENCE_SERVER_NAME && isReferenceTool(tool)) return 'reference';
  if (readOnly(tool)) return 'read-only';
  return undefined;
}

/** Sort the listed tools into the ones the checks may call and the rest. */
export function callPolicy(
  tools: readonly Tool[],
  serverName: string | undefined,
  option: CallToolsOption | undefined,
  unread: UnreadTools = NO_UNREAD,
): CallPolicy {
  const because = new Map<string, AllowedBecause>();
  const allowed: Tool[] = [];
  const refused: Tool[] = [];
  for (const tool of tools) {
    const reason = why(tool, serverName, option);
    if (reason === undefined) refused.push(tool);
    else {
      allowed.push(tool);
      because.set(tool.name, reason);
    }
  }
  return {
    allowed,
    because,
    refused,
    refusedNote: refusedNote(refused, option),
    unread,
    ...(option === undefined ? {} : { option }),
  };
}

const SHOWN = 12;

function refusedNote(refused: readonly Tool[], option: CallToolsOption | undefined): string | undefined {
  if (refused.length === 0) return undefined;
  const names = refused.map((t) => t.name);
  const shown =
    names.slice(0, SHOWN).join(', ') + (names.length > SHOWN ? `, ... (${names.length} tools)` : '');
  const why =
    option === undefined
      ? "not annotated readOnlyHint: true, and not a tool of wirecheck's reference or mock servers"
      : option === 'none'
        ? '--call-tools none'
        : 'not named in --call-tools';
  return `tools not called (${why}): ${shown}. To let the checks call them with generated arguments, add --call-tools all or --call-tools ${names.slice(0, 3).join(',')}`;
}

/** Characters of a listed name shown in the message (a server may list a name of any length). */
const LISTED_NAME_CHARS = 80;

/**
 * Why `--call-tools NAME,...` cannot be what the user asked, or undefined: it names a tool the
 * server does not list, so that name is never called and the run would pass with the checks
 * that need it skipped for "not named in --call-tools", which never mentions the name given
 * (a typo gave a green run). Judged against the run's one listing, the one the policy is made
 * from: a name missing there is not called in this run whatever a later listing holds. A
 * listing that stopped early (an error page, a loop, the size bound) may hold the name on a
 * page not read: nothing is judged then. An entry the Tool schema refuses is still listed by
 * its name: naming it is no typo (tools.list-shape judges the entry).
 */
export function unlistedNamesProblem(
  pages: { readonly results: readonly unknown[]; readonly problem?: string; readonly cut?: string },
  option: CallToolsOption | undefined,
): string | undefined {
  if (option === undefined || typeof option === 'string') return undefined;
  if (pages.problem !== undefined || pages.cut !== undefined) return undefined;
  const listed: string[] = [];
  for (const result of pages.results) {
    const raw = (result as { tools?: unknown } | null)?.tools;
    if (!Array.isArray(raw)) continue;
    for (const item of raw) {
      const name = (item as { name?: unknown } | null)?.name;
      if (typeof name === 'string') listed.push(name);
    }
  }
  const known = new Set(listed);
  const missing = option.filter((n) => !known.has(n));
  if (missing.length === 0) return undefined;
  const quoted = missing.map((n) => JSON.stringify(n));
  const names =
    quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]}`;
  const shown = listed.map((n) => (n.length > LISTED_NAME_CHARS ? `${n.slice(0, LISTED_NAME_CHARS)}...` : n));
  const lists =
    listed.length === 0
      ? 'it lists no tools'
      : `it lists: ${shown.slice(0, SHOWN).join(', ')}${listed.length > SHOWN ? `, ... (${listed.length} tools)` : ''}`;
  const never = missing.length === 1 ? 'it would never be called' : 'they would never be called';
  return `--call-tools names ${names}, which the server does not list (${lists}): the checks call only listed tools, so ${never} and the run would not be the one asked for; give the names as tools/list spells them, or --call-tools all`;
}

/** The skip message when a check needs a tool and none may be called. */
export function noToolMessage(policy: CallPolicy, what: string): string {
  const unread = unreadNote(policy.unread);
  if (policy.allowed.length === 0 && policy.refused.length === 0) {
    return unread === undefined ? 'the server lists no tools' : `${what}: no tool to call; ${unread}`;
  }
  return `${what}: no tool may be called; ${policy.refusedNote ?? 'none is allowed'}${unread === undefined ? '' : `; ${unread}`}`;
}
