import { safeParseTool, type Tool } from '../../protocol/mcp/index.js';

// The tools the checks use, read from the pages of tools/list. A tool the Tool schema refuses
// (an inputSchema that is null, a property schema that is a string) is the list check's to
// judge (tools.list-shape); the other checks never see it, so none of them reads a field it
// cannot have, and the ones that name what they left out name it too.

/** The listed tools left out for being malformed: how many, and the first names. */
export interface UnreadTools {
  readonly count: number;
  readonly names: readonly string[];
}

export const NO_UNREAD: UnreadTools = { count: 0, names: [] };

/** Names kept of the tools left out, and characters of each. */
const NAMES_KEPT = 12;
const NAME_CHARS = 80;

/** The well-formed tools of every page, and the listed ones left out. */
export function readTools(pages: readonly unknown[]): { tools: Tool[]; unread: UnreadTools } {
  const tools: Tool[] = [];
  const names: string[] = [];
  let count = 0;
  for (const result of pages) {
    const raw = (result as { tools?: unknown } | null)?.tools;
    if (!Array.isArray(raw)) continue;
    for (const item of raw) {
      const tool = safeParseTool(item);
      if (tool.success) {
        tools.push(tool.data);
        continue;
      }
      count++;
      const name = (item as { name?: unknown } | null)?.name;
      if (names.length < NAMES_KEPT)
        names.push(typeof name === 'string' ? JSON.stringify(name.slice(0, NAME_CHARS)) : '(no name)');
    }
  }
  return { tools, unread: { count, names } };
}

/** The sentence naming the tools left out, undefined when none was. */
export function unreadNote(unread: UnreadTools): string | undefined {
  if (unread.count === 0) return undefined;
  const more = unread.count > unread.names.length ? `, ... (${unread.count} tools)` : '';
  const which = unread.count === 1 ? '1 listed tool' : `${unread.count} listed tools`;
  return `${which} left out for a malformed entry (tools.list-shape judges it): ${unread.names.join(', ')}${more}`;
}
