import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  type ComparedRequest,
  describeRequestDifference,
  type MatchCandidate,
  matchesMasked,
  matchRequest,
  prepareMatching,
  requestDifferences,
} from '../../../src/mocks/messages/recording-match.js';
import { GROWTH_BOUND, sizesSideBySide } from '../../side-by-side.js';

const BODY = {
  model: 'claude-x',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'hello' }],
};

const post = (body: unknown, path = '/v1/messages'): ComparedRequest => ({ method: 'POST', path, body });
const candidate = (body: unknown, streamEither = false, path = '/v1/messages'): MatchCandidate => ({
  request: post(body, path),
  streamEither,
});

/** The same JSON value with every object's keys in reverse order. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .reverse()
        .map((k) => [k, reordered((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Every path to a leaf (a string, number, boolean or null) with its JSON path. */
function leaves(value: unknown, at = '$'): Array<{ at: string; keys: (string | number)[] }> {
  const walk = (
    v: unknown,
    path: string,
    keys: (string | number)[],
  ): Array<{ at: string; keys: (string | number)[] }> => {
    if (Array.isArray(v)) return v.flatMap((x, i) => walk(x, `${path}[${i}]`, [...keys, i]));
    if (v !== null && typeof v === 'object') {
      return Object.keys(v).flatMap((k) =>
        walk(
          (v as Record<string, unknown>)[k],
          /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`,
          [...keys, k],
        ),
      );
    }
    return [{ at: path, keys }];
  };
  return walk(value, at, []);
}

function withLeaf(value: unknown, keys: (string | number)[], leaf: unknown): unknown {
  if (keys.length === 0) return leaf;
  const [head, ...rest] = keys;
  if (Array.isArray(value)) return value.map((x, i) => (i === head ? withLeaf(x, rest, leaf) : x));
  const o = value as Record<string, unknown>;
  return { ...o, [head as string]: withLeaf(o[head as string], rest, leaf) };
}

// Bodies whose keys never look like credentials, so what is shown is what was changed.
const plainKey = fc.stringMatching(/^[a-z]{1,6}$/).filter((k) => !['key', 'auth', 'token'].includes(k));
const body = fc.dictionary(
  plainKey,
  fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.integer(),
    fc.boolean(),
    fc.array(fc.dictionary(plainKey, fc.oneof(fc.string({ maxLength: 12 }), fc.integer()), { maxKeys: 3 }), {
      maxLength: 3,
    }),
  ),
  { minKeys: 1, maxKeys: 6 },
);

describe('matching an arrived request to a recorded one', () => {
  test('a request equal to a recorded one up to key order matches it', () => {
    fc.assert(
      fc.property(body, (recorded) => {
        expect(requestDifferences(candidate(recorded), post(reordered(recorded)))).toEqual([]);
        expect(matchRequest([candidate(recorded)], post(reordered(recorded)))).toEqual({
          kind: 'matched',
          indices: [0],
        });
      }),
    );
  });

  test('a changed leaf does not match, and the difference names that leaf', () => {
    fc.assert(
      fc.property(
        body
          .filter((recorded) => leaves(recorded).length > 0)
          .chain((recorded) =>
            fc.record({ recorded: fc.constant(recorded), leaf: fc.constantFrom(...leaves(recorded)) }),
          ),
        ({ recorded, leaf }) => {
          const arrived = withLeaf(recorded, leaf.keys, '\u0000changed');
          const found = requestDifferences(candidate(recorded), post(arrived));
          expect(found).toHaveLength(1);
          expect(found[0]).toMatchObject({ at: leaf.at, kind: 'changed', arrived: '\u0000changed' });
          const result = matchRequest([candidate(recorded)], post(arrived));
          expect(result).toMatchObject({ kind: 'unmatched', nearest: 0 });
        },
      ),
    );
  });

  test('a turn appended is one difference at the first element the recording lacks', () => {
    const arrived = { ...BODY, messages: [...BODY.messages, { role: 'assistant', content: 'hi' }] };
    expect(requestDifferences(candidate(BODY), post(arrived))).toEqual([
      { at: '$.messages[1]', kind: 'extra', arrived: { role: 'assistant', content: 'hi' } },
    ]);
    expect(requestDifferences(candidate(arrived), post(BODY))).toEqual([
      { at: '$.messages[1]', kind: 'missing', recorded: { role: 'assistant', content: 'hi' } },
    ]);
  });

  test('a missing key and an added key are differences; a value of another type too', () => {
    const { max_tokens: _, ...without } = BODY;
    expect(requestDifferences(candidate(BODY), post(without))).toEqual([
      { at: '$.max_tokens', kind: 'missing', recorded: 64 },
    ]);
    expect(requestDifferences(candidate(BODY), post({ ...BODY, temperature: 0 }))).toEqual([
      { at: '$.temperature', kind: 'extra', arrived: 0 },
    ]);
    expect(requestDifferences(candidate(BODY), post({ ...BODY, max_tokens: '64' }))).toEqual([
      { at: '$.max_tokens', kind: 'changed', recorded: 64, arrived: '64' },
    ]);
  });

  test('method and target are compared; masked query values match any value', () => {
    expect(requestDifferences(candidate(BODY), { ...post(BODY), method: 'PUT' })[0]).toMatchObject({
      at: 'method',
    });
    expect(requestDifferences(candidate(BODY), post(BODY, '/v1/messages?beta=true'))[0]).toMatchObject({
      at: 'path',
      recorded: '/v1/messages',
      arrived: '/v1/messages?beta=true',
    });
    const masked = candidate(BODY, false, '/v1/messages?beta=true&key=[redacted]');
    expect(requestDifferences(masked, post(BODY, '/v1/messages?beta=true&key=sk-live-123'))).toEqual([]);
    // Only the endpoint known: the recorded query is not held against the request.
    const beta = candidate(BODY, false, '/v1/messages?beta=true');
    expect(requestDifferences(beta, { ...post(BODY), queryUnknown: true })).toEqual([]);
    expect(
      requestDifferences(candidate(BODY, false, '/v1/messages/count_tokens'), {
        ...post(BODY),
        queryUnknown: true,
      }),
    ).toHaveLength(1);
  });

  test('a value the recorder masked matches anything at that spot, and nothing around it changes', () => {
    const recorded = {
      ...BODY,
      metadata: { user_id: 'u1', api_key: '[redacted]' },
      system: 'key is [redacted**], ok',
    };
    const arrived = {
      ...BODY,
      metadata: { user_id: 'u1', api_key: 'sk-ant-999' },
      system: 'key is sk-ant-12, ok',
    };
    expect(requestDifferences(candidate(recorded), post(arrived))).toEqual([]);
    expect(
      requestDifferences(candidate(recorded), post({ ...arrived, system: 'key is sk-ant-12, no' })),
    ).toHaveLength(1);
    expect(matchesMasked('[redacted]', '')).toBe(true);
    expect(matchesMasked('a[redacted]b[redacted]c', 'aXbYc')).toBe(true);
    expect(matchesMasked('a[redacted]b[redacted]c', 'aXcYb')).toBe(false);
    expect(matchesMasked('ab[redacted]ba', 'aba')).toBe(false);
    expect(matchesMasked('********', 'sk-12345')).toBe(false);
  });

  test('`stream` is not compared when the recording converts to the other mode; absent is false', () => {
    const streamed = { ...BODY, stream: true };
    expect(requestDifferences(candidate(streamed, true), post(BODY))).toEqual([]);
    expect(requestDifferences(candidate(streamed, false), post(BODY))).toEqual([
      { at: '$.stream', kind: 'missing', recorded: true },
    ]);
    expect(requestDifferences(candidate(BODY), post({ ...BODY, stream: false }))).toEqual([]);
  });

  test('the nearest recording is the one with the fewest differences, the first of a tie', () => {
    const far = candidate({ ...BODY, model: 'other', max_tokens: 1 });
    const near = candidate({ ...BODY, max_tokens: 1 });
    const result = matchRequest([far, near, near], post(BODY));
    expect(result).toMatchObject({ kind: 'unmatched', nearest: 1 });
    expect(matchRequest([near, candidate(BODY), far, candidate(reordered(BODY))], post(BODY))).toEqual({
      kind: 'matched',
      indices: [1, 3],
    });
  });

  test('a difference shows both values clipped to 80 characters, a credential-named field never', () => {
    const long = 'x'.repeat(500);
    const shown = describeRequestDifference({
      at: '$.system',
      kind: 'changed',
      recorded: 'short',
      arrived: long,
    });
    expect(shown).toMatch(/^\$\.system: recorded "short", arrived "x{79}\.\.\. \(502 characters\)$/);
    const secret = describeRequestDifference({
      at: '$.metadata.api_key',
      kind: 'changed',
      recorded: 'a',
      arrived: 'sk-ant-secret',
    });
    expect(secret).not.toContain('sk-ant-secret');
    const nested = describeRequestDifference({
      at: '$.metadata',
      kind: 'extra',
      arrived: { token: 'sk-ant-secret' },
    });
    expect(nested).not.toContain('sk-ant-secret');
    const target = describeRequestDifference({
      at: 'path',
      kind: 'changed',
      recorded: '/v1/messages',
      arrived: '/v1/messages?api_key=sk-ant-secret',
    });
    expect(target).not.toContain('sk-ant-secret');
  });

  test("the nearest of a session's recordings is the one sharing the most turns, not its first", () => {
    const u = (text: string) => ({ role: 'user', content: text });
    const a = (text: string) => ({ role: 'assistant', content: text });
    const turns = [u('list files'), a('ok'), u('now delete tmp'), a('done'), u('thanks')];
    const session = [1, 3, 5].map((n) => candidate({ ...BODY, messages: turns.slice(0, n) }));
    const drifted = { ...BODY, messages: [...turns.slice(0, 4), u('thanks!')] };
    const result = matchRequest(session, post(drifted));
    expect(result).toMatchObject({ kind: 'unmatched', nearest: 2 });
    if (result.kind !== 'unmatched') return;
    expect(result.differences.map((d) => d.at)).toEqual(['$.messages[4].content']);
    // The next turn of the session: the longest recording, one turn short.
    const next = matchRequest(session, post({ ...BODY, messages: [...turns, a('bye'), u('again')] }));
    expect(next).toMatchObject({ kind: 'unmatched', nearest: 2 });
  });

  test('matching agrees with requestDifferences: a recording matches exactly when it differs in nothing', () => {
    // Leaves masked or changed at random, keys reordered: the digests must judge as the walk does.
    const masked = (value: unknown, pick: number): unknown => {
      let n = 0;
      const walk = (v: unknown): unknown => {
        if (typeof v === 'string') return n++ % 3 === pick % 3 ? `[redacted]${v.slice(1)}` : v;
        if (Array.isArray(v)) return v.map(walk);
        if (v !== null && typeof v === 'object') {
          return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
        }
        return v;
      };
      return walk(value);
    };
    const request = fc.record({
      rest: body,
      turns: fc.array(fc.oneof(fc.string({ maxLength: 4 }), body), { maxLength: 4 }),
      stream: fc.constantFrom(undefined, true, false),
    });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(request, fc.nat(5), fc.boolean()), { minLength: 1, maxLength: 5 }),
        request,
        fc.nat(4),
        (recorded, arrivedParts, copy) => {
          const bodyOf = (r: typeof arrivedParts) => ({
            ...r.rest,
            messages: r.turns,
            ...(r.stream === undefined ? {} : { stream: r.stream }),
          });
          const candidates = recorded.map(([r, pick, either]) =>
            candidate(pick < 3 ? masked(bodyOf(r), pick) : bodyOf(r), either),
          );
          // Often the arrived request is one of the recorded ones, reordered.
          const source = recorded[copy % recorded.length]![0];
          const arrived = post(copy < 3 ? reordered(bodyOf(source)) : bodyOf(arrivedParts));
          const expected = candidates.flatMap((c, i) =>
            requestDifferences(c, arrived, 1).length === 0 ? [i] : [],
          );
          const result = matchRequest(candidates, arrived);
          if (expected.length > 0) expect(result).toEqual({ kind: 'matched', indices: expected });
          else expect(result.kind).toBe('unmatched');
        },
      ),
      { numRuns: 300 },
    );
  });

  test('matching costs about the same per recording however long the session grew', () => {
    // A session's recordings, each a turn longer: walking each from the start to where it
    // ends cost the square of the session for the last request (1.9 s for 100 turns of 50 KB).
    const text = 'x'.repeat(2000);
    const turn = (i: number) => ({ role: i % 2 ? 'assistant' : 'user', content: `${i} ${text}` });
    const bodyOf = (k: number) => ({
      ...BODY,
      messages: Array.from({ length: 2 * k + 1 }, (_, i) => turn(i)),
    });
    const sessions = new Map<number, MatchCandidate[]>();
    const sessionOf = (n: number) => {
      let session = sessions.get(n);
      if (session === undefined) {
        session = Array.from({ length: n }, (_, k) => candidate(bodyOf(k)));
        prepareMatching(session);
        sessions.set(n, session);
      }
      return session;
    };
    const last = new Map<number, ComparedRequest>();
    const lastOf = (n: number) => {
      let request = last.get(n);
      if (request === undefined) {
        request = post(bodyOf(n - 1));
        last.set(n, request);
      }
      return request;
    };
    sessionOf(12);
    sessionOf(96);
    const { ratio, says } = sizesSideBySide((n) => {
      const result = matchRequest(sessionOf(n), lastOf(n));
      expect(result).toEqual({ kind: 'matched', indices: [n - 1] });
    }, 12);
    expect(ratio, says).toBeLessThan(GROWTH_BOUND);
  });
});
