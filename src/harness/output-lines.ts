// How a target's stdout or stderr is quoted in a message (a target that cannot start, that
// stopped answering): its first non-blank lines, each cut short, where the cause of a
// crash usually is. One form for every suite.

/** The first non-blank lines of `text` (at most `max`), each cut at `width` characters. */
export function firstLines(text: string, max = 8, width = 200): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '')
    .slice(0, max)
    .map((l) => (l.length > width ? `${l.slice(0, width)}...` : l));
}

/** `first lines of LABEL:` and the lines below it, or '' when `text` has none: ends a message. */
export function firstLinesBlock(label: string, text: string, max = 8): string {
  const lines = firstLines(text, max);
  return lines.length === 0 ? '' : `first lines of ${label}:\n${lines.join('\n')}`;
}

/** `; NAME: line | line | ... (N more lines)`, or `; nothing on NAME`: the one-line form. */
export function outputPart(name: string, text: string, max = 6, width = 240): string {
  const all = firstLines(text, Number.POSITIVE_INFINITY, width);
  if (all.length === 0) return `; nothing on ${name}`;
  const more = all.length > max ? ` | ... (${all.length - max} more lines)` : '';
  return `; ${name}: ${all.slice(0, max).join(' | ')}${more}`;
}
