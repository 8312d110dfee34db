import { windowAround } from '../../harness/item-window.js';
import type { Evidence, FrameItem } from '../../harness/results.js';
import { clip, escapeHtml } from './escape.js';

type FramesEvidence = Extract<Evidence, { kind: 'frames' }>;

/** Frames drawn per picture (a window around the marked one): the page stays fast for huge streams. */
const MAX_FRAMES = 240;
const MAX_DATA_CHARS = 2_000;
const MAX_TITLE_CHARS = 600;
const SLOT = 18;
const PAD = 24;
const AXIS_Y = 34;
const DOT_Y = 92;

/** A colour family per event, so the rhythm of a stream is visible at a glance. */
function kindOf(frame: FrameItem): string {
  if (frame.comment) return 'comment';
  switch (frame.event) {
    case 'message_start':
    case 'message_stop':
      return 'message';
    case 'content_block_start':
    case 'content_block_stop':
      return 'block';
    case 'content_block_delta':
      return 'delta';
    case 'message_delta':
      return 'mdelta';
    case 'ping':
      return 'ping';
    case 'error':
      return 'error';
    case 'endpoint':
    case 'message':
      return 'rpc';
    default:
      return 'other';
  }
}

function labelOf(frame: FrameItem): string {
  if (frame.comment) return ': comment';
  return frame.event ?? '(no event)';
}

function ms(value: number): string {
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ms`;
}

/**
 * A stream's frames on a time axis: a tick per frame at its arrival time, fanned out to a
 * labelled dot per frame in arrival order (frames arrive in bursts, so labels cannot sit at
 * their times), the marked frame in red; then the frames as a list.
 */
export function renderFrames(evidence: FramesEvidence): string {
  const { frames, mark } = evidence;
  const shown = windowAround(frames, mark, MAX_FRAMES);
  const first = shown.items[0]?.item.atMs ?? 0;
  const last = shown.items.reduce((m, { item }) => Math.max(m, item.atMs), first);
  const span = last - first;
  const width = Math.max(640, shown.items.length * SLOT + 2 * PAD);
  // The dots share the axis's width, so a dot sits near its own tick when frames are spread out.
  const slotWidth = (width - 2 * PAD) / Math.max(1, shown.items.length);
  const xOfTime = (at: number) => PAD + (span > 0 ? ((at - first) / span) * (width - 2 * PAD) : 0);
  const height = DOT_Y + 165;
  const parts: string[] = [];
  parts.push(
    `<line class="axis" x1="${PAD}" y1="${AXIS_Y}" x2="${width - PAD}" y2="${AXIS_Y}"/>`,
    `<text class="tick" x="${PAD}" y="${AXIS_Y - 10}">${escapeHtml(ms(first))}</text>`,
    `<text class="tick" x="${width - PAD}" y="${AXIS_Y - 10}" text-anchor="end">${escapeHtml(ms(last))}</text>`,
  );
  shown.items.forEach(({ item, index }, slot) => {
    const xt = xOfTime(item.atMs).toFixed(1);
    const xd = (PAD + slot * slotWidth + slotWidth / 2).toFixed(1);
    const marked = index === mark;
    const title = `#${index} ${labelOf(item)} at ${ms(item.atMs)}\n${clip(item.data, MAX_TITLE_CHARS)}`;
    parts.push(
      `<g class="frame k-${kindOf(item)}${marked ? ' marked' : ''}" data-index="${index}">`,
      `<title>${escapeHtml(title)}</title>`,
      `<line class="tick-mark" x1="${xt}" y1="${AXIS_Y - 6}" x2="${xt}" y2="${AXIS_Y + 6}"/>`,
      `<line class="fan" x1="${xt}" y1="${AXIS_Y + 6}" x2="${xd}" y2="${DOT_Y - 7}"/>`,
      `<circle cx="${xd}" cy="${DOT_Y}" r="${marked ? 7 : 5}"/>`,
      `<text class="flabel" transform="translate(${xd} ${DOT_Y + 12}) rotate(60)">#${index} ${escapeHtml(clip(labelOf(item), 24))}</text>`,
      '</g>',
    );
  });
  const note =
    shown.omitted > 0
      ? `<div class="note">${shown.omitted} of ${frames.length} frames not drawn (showing a window around ${mark === undefined ? 'the start' : `frame #${mark}`}, and the last frame)</div>`
      : '';
  const when =
    span > 0
      ? `${frames.length} frames over ${ms(span)}`
      : `${frames.length} frame${frames.length === 1 ? '' : 's'}, all at ${ms(first)}`;
  return [
    `<figure class="evidence frames"><figcaption>${escapeHtml(evidence.title)} <span class="meta">(${escapeHtml(when)}${mark === undefined ? '' : `; offending frame #${mark}`})</span></figcaption>`,
    `<div class="scroll"><svg class="timeline" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="frames on a time axis">${parts.join('')}</svg></div>`,
    note,
    frameList(shown.items, mark),
    '</figure>',
  ].join('');
}

function frameList(items: readonly { item: FrameItem; index: number }[], mark: number | undefined): string {
  const rows = items.map(({ item, index }) => {
    const marked = index === mark;
    return `<tr class="k-${kindOf(item)}${marked ? ' marked' : ''}"><td class="num">#${index}</td><td class="num">${escapeHtml(ms(item.atMs))}</td><td>${escapeHtml(labelOf(item))}</td><td><pre>${escapeHtml(clip(item.data, MAX_DATA_CHARS))}</pre></td></tr>`;
  });
  return `<details class="frame-list"${mark === undefined ? '' : ' open'}><summary>frame list</summary><div class="list-wrap"><table class="list"><thead><tr><th>#</th><th>at</th><th>event</th><th>data</th></tr></thead><tbody>${rows.join('')}</tbody></table></div></details>`;
}
