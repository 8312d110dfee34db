import { connect } from 'node:net';
import { describe, expect, test } from 'vitest';
import {
  type ConnectOutcome,
  NoRefusedPortError,
  REFUSED_PORT_CANDIDATES,
  refusedLoopbackPort,
} from '../../src/harness/refused-address.js';

describe('a loopback port that refuses connections', () => {
  test('every candidate is below 1024, where no listener opened with port 0 is ever put', () => {
    expect(REFUSED_PORT_CANDIDATES.length).toBeGreaterThan(3);
    expect(REFUSED_PORT_CANDIDATES.every((p) => Number.isInteger(p) && p > 0 && p < 1024)).toBe(true);
  });

  test('the first candidate that refuses is taken; one that accepts or does not answer is passed over', async () => {
    const outcomes: Record<number, ConnectOutcome> = {
      9: 'accepted',
      1: 'other',
      3: 'refused',
      5: 'refused',
    };
    const asked: number[] = [];
    const port = await refusedLoopbackPort([9, 1, 3, 5], async (p) => {
      asked.push(p);
      return outcomes[p] ?? 'other';
    });
    expect(port).toBe(3);
    expect(asked).toEqual([9, 1, 3]);
  });

  test('when none refuses, a typed error names what was expected and the ports tried', async () => {
    const failure = await refusedLoopbackPort([9, 1], async () => 'accepted').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(NoRefusedPortError);
    expect((failure as NoRefusedPortError).tried).toEqual([9, 1]);
    expect((failure as Error).message).toContain('expected ECONNREFUSED on one of 127.0.0.1:9, 1');
  });

  test('on this machine: the port it gives refuses a connection', async () => {
    const port = await refusedLoopbackPort();
    const code = await new Promise<string | undefined>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code));
    });
    expect(code).toBe('ECONNREFUSED');
  });
});
