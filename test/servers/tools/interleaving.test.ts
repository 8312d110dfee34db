import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  createToolServerCore,
  REFERENCE_TOOLS,
  type ToolServerSession,
} from '../../../src/servers/tools/index.js';

type Op =
  | { kind: 'echo'; session: number }
  | { kind: 'slow'; session: number; ms: number }
  | { kind: 'cancel'; session: number; back: number }
  | { kind: 'close'; session: number }
  | { kind: 'tick' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('echo' as const), session: fc.nat(3) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('slow' as const),
      session: fc.nat(3),
      ms: fc.integer({ min: 0, max: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('cancel' as const), session: fc.nat(3), back: fc.nat(4) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('close' as const), session: fc.nat(3) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'tick' as const }) },
);

describe('sessions under any interleaving (spec "Errors": each session gets only its own replies)', () => {
  test('replies go to their own session only, never after a cancel or a close, and the counts stay true', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const core = createToolServerCore({ tools: REFERENCE_TOOLS });
        const sessions: ToolServerSession[] = [];
        const received: { session: number; reply: Record<string, unknown> }[][] = [[], [], [], []];
        const sent: number[][] = [[], [], [], []];
        const dropped = new Set<string>();
        let nextId = 1;
        for (let i = 0; i < 4; i++) sessions.push(core.openSession({ transport: 'memory', id: `s${i}` }));
        const deliver = (i: number, out: unknown) => {
          const push = (r: unknown) => {
            if (r !== undefined) received[i]?.push({ session: i, reply: r as Record<string, unknown> });
          };
          if (out instanceof Promise) void out.then(push);
          else push(out);
        };
        for (const o of ops) {
          if (o.kind === 'tick') {
            await new Promise((r) => setTimeout(r, 1));
            continue;
          }
          const session = sessions[o.session] as ToolServerSession;
          const answered = (i: number, id: number) => (received[i] ?? []).some((r) => r.reply.id === id);
          if (o.kind === 'close') {
            for (const id of sent[o.session] ?? []) {
              if (!answered(o.session, id)) dropped.add(`${o.session}:${id}`);
            }
            session.close();
            continue;
          }
          if (o.kind === 'cancel') {
            const ids = sent[o.session] ?? [];
            const id = ids[ids.length - 1 - o.back];
            if (id === undefined) continue;
            if (!answered(o.session, id)) dropped.add(`${o.session}:${id}`);
            session.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
            continue;
          }
          const id = nextId++;
          if (!session.closed) sent[o.session]?.push(id);
          const params =
            o.kind === 'echo'
              ? { name: 'echo', arguments: { text: `s${o.session}#${id}` } }
              : { name: 'slow', arguments: { ms: o.ms } };
          deliver(o.session, session.handle({ jsonrpc: '2.0', id, method: 'tools/call', params }));
        }
        await new Promise((r) => setTimeout(r, 10));
        const inFlight = sessions.reduce((n, s) => n + s.inFlightCount(), 0);
        expect(core.inFlightCount()).toBe(inFlight);
        for (let i = 0; i < 4; i++) {
          for (const { reply } of received[i] ?? []) {
            // Every reply answers a request of this session.
            expect(sent[i]).toContain(reply.id);
            const text = (reply.result as { content: { text: string }[] }).content[0]?.text ?? '';
            if (text.startsWith('s')) expect(text).toBe(`s${i}#${String(reply.id)}`);
          }
          const ids = (received[i] ?? []).map((r) => r.reply.id);
          expect(new Set(ids).size).toBe(ids.length);
          // A request cancelled or closed over before its answer is never answered; any other is.
          for (const id of sent[i] ?? []) {
            if (dropped.has(`${i}:${id}`)) expect(ids).not.toContain(id);
            else expect(ids).toContain(id);
          }
        }
        core.closeAll();
        expect(core.inFlightCount()).toBe(0);
        expect(core.sessionCount()).toBe(0);
      }),
      { numRuns: 60, seed: 4242 },
    );
  });
});
