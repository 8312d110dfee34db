import { connect } from 'node:net';

/**
 * Loopback ports below 1024, tried in this order. No listener opened with port 0 (every mock
 * and server of a run, of the user's other jobs and of the tests beside it) is ever given one:
 * the kernel hands those out from the ephemeral range (32768-60999 on Linux, 49152 and up
 * elsewhere). A port that was free a moment ago and closed again can be given to such a
 * listener at any time, and a client sent there reaches it instead of being refused.
 */
export const REFUSED_PORT_CANDIDATES: readonly number[] = [
  9, 1, 3, 5, 7, 11, 13, 15, 17, 19, 47, 51, 61, 91, 1023,
];

const CONNECT_TIMEOUT_MS = 1_000;

/** What a connection attempt to a loopback port met. */
export type ConnectOutcome = 'refused' | 'accepted' | 'other';

function tryConnect(port: number): Promise<ConnectOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (outcome: ConnectOutcome) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => done('other'), CONNECT_TIMEOUT_MS);
    socket.once('connect', () => done('accepted'));
    socket.once('error', (e: NodeJS.ErrnoException) => done(e.code === 'ECONNREFUSED' ? 'refused' : 'other'));
  });
}

/** No candidate port refused a connection (each accepted it or did not answer in time). */
export class NoRefusedPortError extends Error {
  override readonly name = 'NoRefusedPortError';
  constructor(readonly tried: readonly number[]) {
    super(
      `no loopback port refused a connection: expected ECONNREFUSED on one of 127.0.0.1:${tried.join(', ')}; each accepted it or did not answer`,
    );
  }
}

/**
 * The first candidate port on 127.0.0.1 that refuses a connection now. Checked each time: a
 * machine may run a service on any of them.
 */
export async function refusedLoopbackPort(
  candidates: readonly number[] = REFUSED_PORT_CANDIDATES,
  attempt: (port: number) => Promise<ConnectOutcome> = tryConnect,
): Promise<number> {
  for (const port of candidates) {
    if ((await attempt(port)) === 'refused') return port;
  }
  throw new NoRefusedPortError(candidates);
}
