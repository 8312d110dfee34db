import {
  type DeltaSplits,
  eventsOfMessage,
  inputJsonOf,
  type Message,
} from '../../protocol/messages/index.js';

/**
 * Known final messages for the deterministic checks. Text with characters of every
 * UTF-8 length, grapheme clusters and SSE look-alikes; tool input with nested values,
 * escapes and Unicode keys.
 */
export const MIXED_MESSAGE: Message = {
  id: 'msg_wc_mixed_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [
    {
      type: 'text',
      text: 'Привет, 世界! Grüße 👋🏽 👩‍💻 🇺🇦 e\u0301 𝄞 € \u2028 line\r\nnext\n\ndata: event: message_stop',
    },
    {
      type: 'tool_use',
      id: 'toolu_wc_01',
      name: 'get_weather',
      input: {
        city: 'Zürich',
        'ключ 🔑': ['日本語', '😀', { deep: [1, 2.5, -3e-7, true, null, ''] }],
        quote: 'He said "hi" \\ bye\n',
        empty: {},
      },
    },
    {
      type: 'tool_use',
      id: 'toolu_wc_02',
      name: 'bash',
      input: { command: 'printf "%s\\n" ünïcödé', restart: false },
    },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 321, output_tokens: 123 },
};

/** Code-point offsets inside `s`: every place a delta may end (never inside a surrogate pair). */
export function everyCodePointCut(s: string): number[] {
  const cuts: number[] = [];
  let offset = 0;
  for (const ch of s) {
    offset += ch.length;
    if (offset < s.length) cuts.push(offset);
  }
  return cuts;
}

/** Delta splits that send every block of `message` one code point per delta. */
export function oneCodePointPerDelta(message: Message): number[][] {
  return message.content.map((block) =>
    everyCodePointCut(block.type === 'text' ? block.text : inputJsonOf(block.input)),
  );
}

/** Number of scripted frames the mock streams for `message` cut by `splits`. */
export function frameCountOf(message: Message, splits: DeltaSplits): number {
  return eventsOfMessage(message, splits).length;
}

/** All gap positions from `from` to `to`, both included. */
export function gaps(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}
