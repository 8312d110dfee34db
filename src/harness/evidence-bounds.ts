import { clip } from '../protocol/clip.js';
import { windowAround } from './item-window.js';
import type { Evidence } from './results.js';

/**
 * Bounds on a check's evidence (a stream's frames, a session's messages). A case's picture
 * holds what the target sent, every check that quotes the case carries a copy, and the JSON
 * report escapes each control character to six: a client flooding 1 MiB lines made
 * results.json longer than a string can be, and no report was written.
 */
export const EVIDENCE_LIMITS = {
  /** Items kept: a window around the marked one (or from the start), and the last. */
  items: 1000,
  /** Characters of an item's text or data. */
  itemChars: 4096,
  title: 600,
} as const;

/** The items kept of `all` (the report's window: around the mark, the last always) and the mark's new index. */
function windowOf<T>(
  all: readonly T[],
  mark: number | undefined,
  max: number,
): { kept: T[]; mark: number | undefined } {
  const { items } = windowAround(all, mark, max);
  const at = mark === undefined ? -1 : items.findIndex((x) => x.index === mark);
  return { kept: items.map((x) => x.item), mark: at === -1 ? undefined : at };
}

export function boundEvidence(evidence: Evidence): Evidence {
  const items = evidence.kind === 'frames' ? evidence.frames : evidence.messages;
  const { kept, mark } = windowOf<(typeof items)[number]>(items, evidence.mark, EVIDENCE_LIMITS.items);
  const left = items.length - kept.length;
  const title = clip(
    left === 0 ? evidence.title : `${evidence.title} (${kept.length} of ${items.length} kept)`,
    EVIDENCE_LIMITS.title,
  );
  const markField = mark === undefined ? {} : { mark };
  if (evidence.kind === 'frames') {
    const frames = (kept as typeof evidence.frames).map((f) => ({
      ...f,
      data: clip(f.data, EVIDENCE_LIMITS.itemChars),
    }));
    return { kind: 'frames', title, frames, ...markField };
  }
  const messages = (kept as typeof evidence.messages).map((m) => ({
    ...m,
    text: clip(m.text, EVIDENCE_LIMITS.itemChars),
  }));
  return { kind: 'jsonrpc', title, messages, ...markField };
}
