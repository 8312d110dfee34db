import type { Evidence, RpcItem } from '../../harness/results.js';
import type { Channel } from './channel.js';
import type { SseChannel } from './sse-channel.js';

/**
 * The messages of each session in order, on one time axis, for a failure's picture.
 * `mark` names the offending message by its text (the first received item containing it).
 */
export function rpcEvidence(title: string, channels: readonly Channel[], markText?: string): Evidence {
  const all = channels.flatMap((c) => c.peer.items.map((item) => ({ item, session: c.peer.label })));
  all.sort((a, b) => a.item.at - b.item.at);
  const t0 = all[0]?.item.at ?? 0;
  const messages: RpcItem[] = all.slice(0, 400).map(({ item, session }) => ({
    atMs: Math.round(item.at - t0),
    session,
    direction: item.direction,
    text: item.text.length > 4000 ? `${item.text.slice(0, 4000)}... (${item.text.length} chars)` : item.text,
  }));
  const evidence: Evidence = { kind: 'jsonrpc', title, messages };
  if (markText !== undefined) {
    const i = messages.findIndex((m) => m.direction === 'received' && m.text.includes(markText));
    if (i >= 0) evidence.mark = i;
  }
  return evidence;
}

/** The frames of one stream on a time axis (comments included). */
export function frameEvidence(title: string, channel: SseChannel, mark?: number): Evidence {
  const evidence: Evidence = { kind: 'frames', title, frames: channel.frameItems().slice(0, 400) };
  if (mark !== undefined) evidence.mark = mark;
  return evidence;
}
