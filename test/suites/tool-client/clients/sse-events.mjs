// A hand-written SSE reader for the test clients (plain Node; no wirecheck code), so the
// clients' stream handling stays independent of the parser the suite judges them with.

/**
 * Each event of an SSE body, awaited in order: `onEvent({ event, id, retry, data })`, data
 * undefined for an event without a data line; `onComment(line)` for each comment line.
 * Resolves when the body ends.
 */
export async function readEvents(body, onEvent, onComment = () => {}) {
  const decoder = new TextDecoder();
  let text = '';
  let event = { data: [] };
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    for (;;) {
      const m = /\r\n|\r|\n/.exec(text);
      if (m === null || (m[0] === '\r' && m.index === text.length - 1)) break;
      const line = text.slice(0, m.index);
      text = text.slice(m.index + m[0].length);
      if (line === '') {
        await onEvent({ ...event, data: event.data.length === 0 ? undefined : event.data.join('\n') });
        event = { data: [] };
        continue;
      }
      if (line.startsWith(':')) {
        onComment(line);
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') event.data.push(value);
      else if (field === 'id') event.id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) event.retry = Number(value);
      else if (field === 'event') event.event = value;
    }
  }
}
