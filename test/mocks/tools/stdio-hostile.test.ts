import fc from 'fast-check';
import { expect, test } from 'vitest';
import { arbMessageTemplate, renderMessages } from '../../../src/fuzz/mutations/jsonrpc.js';
import { runStdioMockToolServer } from '../../../src/mocks/tools/index.js';
import { librarySession } from '../../fixtures/library-tool-sessions.js';

// The lines the fuzz surfaces throw at the reference tool server (valid, broken, batches,
// garbage, damaged bytes), thrown at the mock tool server a tool client under test talks to:
// it neither throws nor stops answering, and writes nothing but JSON-RPC. The liveness probe
// after each case is a tools/list, which waits behind every answer queued before it (a ping
// would be answered at once), as in the SSE and Streamable HTTP properties.

const ALIVE = 'wirecheck-alive';
const LIST = new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: ALIVE, method: 'tools/list' }));

const recording = async () => librarySession('tool-sessions/stdio.json');

test.each([
  ['its scenario', undefined],
  ['a recorded session (replay)', recording],
])(
  'any lines a client sends: the stdio mock tool server serving %s keeps answering JSON-RPC and stays alive',
  async (_, replayOf) => {
    const replay = await replayOf?.();
    await fc.assert(
      fc.asyncProperty(fc.array(arbMessageTemplate, { minLength: 1, maxLength: 6 }), async (templates) => {
        const lines = [...renderMessages(templates).map((m) => m.body), LIST];
        const input = Buffer.concat(lines.flatMap((body) => [Buffer.from(body), Buffer.from('\n')]));
        const out: string[] = [];
        const { end } = await runStdioMockToolServer(
          {},
          {
            input: (async function* () {
              yield input;
            })(),
            write: (text) => void out.push(text),
            ...(replay && { replay, speed: 0 }),
          },
        );
        expect(end).toBe('eof');
        const replies = out
          .join('')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        for (const reply of replies.flat()) expect(reply).toMatchObject({ jsonrpc: '2.0' });
        // The tools/list after the case is answered (a result, or an error if the case left the session unusable).
        expect(replies.flat().some((r) => r.id === ALIVE && ('result' in r || 'error' in r))).toBe(true);
      }),
      { numRuns: 300, seed: 20261202 },
    );
  },
);
