import type { Message } from '../../protocol/messages/index.js';

/**
 * The fields of the buffered response shape that the spec names ("Message response
 * (buffered)", "Content blocks"): the comparison looks at these only, as the real API
 * adds fields that a client may pass through or drop.
 */
export function bufferedShape(message: Message): unknown {
  return {
    id: message.id,
    type: message.type,
    role: message.role,
    model: message.model,
    content: message.content.map((block) =>
      block.type === 'text'
        ? { type: block.type, text: block.text }
        : { type: block.type, id: block.id, name: block.name, input: block.input },
    ),
    stop_reason: message.stop_reason,
    stop_sequence: message.stop_sequence,
    usage: { input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens },
  };
}

/**
 * The first place where two JSON values differ, as `path: expected X, got Y`; undefined
 * when they are equal. Object key order does not matter, array order does.
 */
export function firstDifference(expected: unknown, actual: unknown, path = '$'): string | undefined {
  if (expected === actual) return undefined;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${brief(actual)}`;
    if (expected.length !== actual.length) {
      return `${path}: expected ${expected.length} elements, got ${actual.length}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const d = firstDifference(expected[i], actual[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (isObject(expected)) {
    if (!isObject(actual)) return `${path}: expected an object, got ${brief(actual)}`;
    const expectedKeys = Object.keys(expected);
    for (const key of expectedKeys) {
      if (!Object.hasOwn(actual, key)) return `${path}: missing key ${JSON.stringify(key)}`;
      const d = firstDifference(expected[key], actual[key], `${path}${member(key)}`);
      if (d !== undefined) return d;
    }
    const extra = Object.keys(actual).find((k) => !Object.hasOwn(expected, k));
    return extra === undefined ? undefined : `${path}: unexpected key ${JSON.stringify(extra)}`;
  }
  return `${path}: expected ${brief(expected)}, got ${brief(actual)}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function member(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function brief(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length <= 200 ? s : `${s.slice(0, 200)}... (${s.length} chars)`;
}
