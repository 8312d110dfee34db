import type { Evidence, FrameItem } from '../../harness/results.js';
import type { StreamedReply } from './replies.js';

/** Items kept in a result (a 100,000-frame stream must not become a 100 MB results.json). */
const MAX_ITEMS = 1_000;
/** Characters kept of one frame's data. */
const MAX_DATA_CHARS = 4_000;

function clipped(text: string): string {
  return text.length <= MAX_DATA_CHARS
    ? text
    : `${text.slice(0, MAX_DATA_CHARS)}… (${text.length - MAX_DATA_CHARS} more chars)`;
}

/**
 * The frames of a streamed reply as a report draws them: each frame and comment with its
 * arrival time (ms since the first byte), `frameIndex` (the offending frame, when one is to
 * blame) marked. A long stream keeps a window around the mark and says so in the title.
 */
export function streamEvidence(label: string, reply: StreamedReply, frameIndex?: number): Evidence {
  const items: FrameItem[] = [];
  let markAt: number | undefined;
  const comments = reply.comments ?? [];
  let c = 0;
  const pushComments = (upTo: number) => {
    for (; c < comments.length && comments[c]!.afterFrames <= upTo; c++) {
      const comment = comments[c]!;
      items.push({ atMs: comment.atMs, data: clipped(comment.text), comment: true });
    }
  };
  reply.frames.forEach((frame, i) => {
    pushComments(i);
    if (i === frameIndex) markAt = items.length;
    items.push({
      atMs: reply.frameTimesMs?.[i] ?? 0,
      ...(frame.event !== undefined && { event: frame.event }),
      data: clipped(frame.data),
    });
  });
  pushComments(Number.POSITIVE_INFINITY);
  const timing = reply.frameTimesMs === undefined ? ' (arrival times not recorded)' : '';
  if (items.length <= MAX_ITEMS) {
    return {
      kind: 'frames',
      title: `${label}${timing}`,
      frames: items,
      ...(markAt !== undefined && { mark: markAt }),
    };
  }
  const centre = markAt ?? 0;
  const from = Math.max(0, Math.min(items.length - MAX_ITEMS, centre - MAX_ITEMS / 2));
  return {
    kind: 'frames',
    title: `${label}${timing}: items ${from}-${from + MAX_ITEMS - 1} of ${items.length} (frames and comments); #0 here is item ${from}`,
    frames: items.slice(from, from + MAX_ITEMS),
    ...(markAt !== undefined && { mark: markAt - from }),
  };
}
