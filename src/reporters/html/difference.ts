import { diffInline, diffLines, prettyIfJson } from './diff.js';
import { clip, escapeHtml } from './escape.js';

/** Characters of an expected or actual value shown (values come from the target). */
const MAX_VALUE_CHARS = 20_000;
/** Unchanged lines kept around each change; longer runs fold into one "… N unchanged lines". */
const CONTEXT_LINES = 3;

/**
 * Expected against actual as a reader wants them: JSON pretty-printed and diffed by line
 * (`-` expected, `+` actual), one-line values side by side with the differing middle
 * highlighted, a lone value as it is.
 */
export function renderDifference(expected: string | undefined, actual: string | undefined): string {
  if (expected === undefined && actual === undefined) return '';
  if (expected === undefined || actual === undefined) {
    const [label, value] = expected === undefined ? ['actual', actual!] : ['expected', expected];
    return `<div class="diff"><div class="label">${label}</div><pre>${escapeHtml(clip(value, MAX_VALUE_CHARS))}</pre></div>`;
  }
  const a = clip(prettyIfJson(expected), MAX_VALUE_CHARS);
  const b = clip(prettyIfJson(actual), MAX_VALUE_CHARS);
  if (!a.includes('\n') && !b.includes('\n')) return inline(a, b);
  return lines(a.split('\n'), b.split('\n'));
}

function inline(expected: string, actual: string): string {
  const d = diffInline(expected, actual);
  const side = (sign: string, cls: string, middle: string) =>
    `<div class="${cls}"><span class="sign">${sign}</span>${escapeHtml(d.prefix)}<mark>${escapeHtml(middle)}</mark>${escapeHtml(d.suffix)}</div>`;
  return [
    '<div class="diff"><div class="label">expected (−) / actual (+)</div><pre>',
    side('−', 'del', d.expected),
    side('+', 'add', d.actual),
    '</pre></div>',
  ].join('');
}

function lines(expected: string[], actual: string[]): string {
  const all = diffLines(expected, actual);
  const keep = all.map(() => false);
  all.forEach((line, i) => {
    if (line.op === 'same') return;
    for (let k = Math.max(0, i - CONTEXT_LINES); k <= Math.min(all.length - 1, i + CONTEXT_LINES); k++)
      keep[k] = true;
  });
  const out: string[] = [];
  let folded = 0;
  const flush = () => {
    if (folded > 0) out.push(`<div class="fold">… ${folded} unchanged line${folded === 1 ? '' : 's'}</div>`);
    folded = 0;
  };
  all.forEach((line, i) => {
    if (!keep[i]) {
      folded++;
      return;
    }
    flush();
    const [cls, sign] = line.op === 'del' ? ['del', '−'] : line.op === 'add' ? ['add', '+'] : ['same', ' '];
    out.push(`<div class="${cls}"><span class="sign">${sign}</span>${escapeHtml(line.text)}</div>`);
  });
  flush();
  return `<div class="diff"><div class="label">expected (−) / actual (+)</div><pre>${out.join('')}</pre></div>`;
}
