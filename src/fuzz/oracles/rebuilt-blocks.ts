/**
 * Each content block rebuilt from a stream's events as the official SDK does: the block of
 * its content_block_start, its text, thinking and signature deltas appended to those
 * fields, its citations_delta citations appended to its citations, its input_json_delta
 * pieces joined and parsed as its input. An oracle for
 * streams of blocks of any type (the spec's, the real API's others).
 */
export function rebuiltBlocks(events: readonly Record<string, unknown>[]): unknown[] {
  const blocks: Record<string, unknown>[] = [];
  const json: string[] = [];
  const joined: Record<string, string> = {
    thinking_delta: 'thinking',
    signature_delta: 'signature',
    text_delta: 'text',
  };
  for (const e of events) {
    const index = e.index as number;
    if (e.type === 'content_block_start') {
      blocks[index] = { ...(e.content_block as Record<string, unknown>) };
      json[index] = '';
    }
    if (e.type !== 'content_block_delta') continue;
    const delta = e.delta as Record<string, string>;
    if (delta.type === 'citations_delta') {
      const held = blocks[index]!.citations;
      blocks[index]!.citations = [...(Array.isArray(held) ? held : []), delta.citation];
    }
    const field = Object.hasOwn(joined, delta.type!) ? joined[delta.type!] : undefined;
    if (field !== undefined) blocks[index]![field] = `${blocks[index]![field] as string}${delta[field]}`;
    if (delta.type === 'input_json_delta') json[index] = `${json[index] ?? ''}${delta.partial_json ?? ''}`;
  }
  json.forEach((text, i) => {
    if (text !== '') blocks[i]!.input = JSON.parse(text);
  });
  return blocks;
}
