/**
 * A copy of `text` that shares no memory with the string it came from. V8 keeps a slice of
 * a long string as a pointer into it (a 200-character preview of a 16 MiB line keeps the
 * 16 MiB alive, and an event's data keeps the whole chunk it was cut from), so whatever a
 * reader of target bytes keeps for later is a copy.
 */
export function detach(text: string): string {
  // Strings this short are copied by V8 anyway; JSON round-trips lone surrogates unchanged.
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

/**
 * At most `max` characters of `text`, detached, with its length noted when it was cut. The
 * cut never splits a surrogate pair: half of one is not text a report can encode.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return detach(text);
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return `${detach(text.slice(0, end))}... (${text.length} characters)`;
}
