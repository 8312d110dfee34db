/** The request every bench stream answers: the mock validates it, the raw server ignores it. */
export const BENCH_REQUEST = {
  model: 'bench-model',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'bench' }],
  stream: true as const,
};

export const BENCH_API_KEY = 'bench-key';

/** Headers of a hand-made request (the reference client and the SDK send their own). */
export const BENCH_HEADERS = {
  'content-type': 'application/json',
  'x-api-key': BENCH_API_KEY,
  'anthropic-version': '2023-06-01',
  accept: 'text/event-stream',
};

/**
 * The bench request asking for the stream named `prompt` (the mock and aimock pick their
 * reply by the user's text; the raw server ignores it).
 */
export function benchBody(prompt = 'bench'): string {
  return JSON.stringify({ ...BENCH_REQUEST, messages: [{ role: 'user', content: prompt }] });
}
