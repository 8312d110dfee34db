/**
 * Break text into lines of at most `width` characters at spaces; a word longer than the
 * width is cut (an id never makes a line wider than the terminal). Runs of white space
 * count as one space; an empty text is one empty line.
 */
export function wrapWords(text: string, width: number): string[] {
  const room = Math.max(width, 10);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    for (let rest = word; rest !== ''; ) {
      const gap = line === '' ? 0 : 1;
      if (line.length + gap + rest.length <= room) {
        line += `${gap === 1 ? ' ' : ''}${rest}`;
        rest = '';
      } else if (line !== '') {
        lines.push(line);
        line = '';
      } else {
        lines.push(rest.slice(0, room));
        rest = rest.slice(room);
      }
    }
  }
  lines.push(line);
  return lines;
}
