import { windowAround } from '../../harness/item-window.js';
import type { Evidence } from '../../harness/results.js';
import { clip, escapeHtml } from './escape.js';

type RpcEvidence = Extract<Evidence, { kind: 'jsonrpc' }>;

const MAX_MESSAGES = 300;
const MAX_TEXT_CHARS = 2_000;

function ms(value: number): string {
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ms`;
}

/**
 * The JSON-RPC messages of each session in order, as a sequence diagram: one column per
 * session, one row per message in the order they crossed the wire (so interleaving across
 * sessions shows), an arrow for the direction, the marked message in red.
 */
export function renderJsonRpc(evidence: RpcEvidence): string {
  const { messages, mark } = evidence;
  const sessions: string[] = [];
  for (const m of messages) if (!sessions.includes(m.session)) sessions.push(m.session);
  const shown = windowAround(messages, mark, MAX_MESSAGES);
  const columns = `repeat(${Math.max(1, sessions.length)}, minmax(16rem, 1fr))`;
  const heads = sessions.map(
    (s, i) =>
      `<div class="session-head" style="grid-column:${i + 1};grid-row:1">${escapeHtml(clip(s, 80))}</div>`,
  );
  const cells = shown.items.map(({ item, index }, row) => {
    const column = sessions.indexOf(item.session) + 1;
    const marked = index === mark;
    const arrow = item.direction === 'sent' ? '→ sent' : '← received';
    return [
      `<div class="msg ${item.direction}${marked ? ' marked' : ''}" data-index="${index}" style="grid-column:${column};grid-row:${row + 2}">`,
      `<div class="msg-head"><span class="arrow">${arrow}</span> <span class="meta">#${index} · ${escapeHtml(ms(item.atMs))}</span></div>`,
      `<pre>${escapeHtml(clip(item.text, MAX_TEXT_CHARS))}</pre>`,
      '</div>',
    ].join('');
  });
  const note =
    shown.omitted > 0
      ? `<div class="note">${shown.omitted} of ${messages.length} messages not shown (a window around ${mark === undefined ? 'the start' : `message #${mark}`}, and the last one)</div>`
      : '';
  const count = `${messages.length} message${messages.length === 1 ? '' : 's'} in ${sessions.length} session${sessions.length === 1 ? '' : 's'}`;
  return [
    `<figure class="evidence jsonrpc"><figcaption>${escapeHtml(evidence.title)} <span class="meta">(${count}${mark === undefined ? '' : `; offending message #${mark}`})</span></figcaption>`,
    `<div class="scroll"><div class="sessions" style="grid-template-columns:${columns}">${heads.join('')}${cells.join('')}</div></div>`,
    note,
    '</figure>',
  ].join('');
}
