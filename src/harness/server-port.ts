import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The lowest port handed out; below it lie the registered ports of common services. */
const LOWEST = 20_000;
/** Linux's default start of the ephemeral range, used where /proc does not say (macOS starts at 49152). */
const DEFAULT_EPHEMERAL_START = 32_768;
const ATTEMPTS = 64;

/** The first port of the kernel's ephemeral range: no listener opened with port 0 is put below it. */
export function ephemeralRangeStart(rangeText?: string): number {
  let text = rangeText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
    } catch {
      return DEFAULT_EPHEMERAL_START;
    }
  }
  const start = Number(text.trim().split(/\s+/)[0]);
  return Number.isInteger(start) && start > 0 ? start : DEFAULT_EPHEMERAL_START;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host: '127.0.0.1', port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * A free port on 127.0.0.1 for a server that is told its port and started a moment later
 * (`--start`). It lies below the ephemeral range: a port taken from that range and released
 * can be given to any listener opened with port 0 (a mock of a suite running beside it) before
 * the server binds it, and the suite would then judge that listener. Where the range leaves no
 * room below it, any free port.
 */
export async function portForServerStart(random: () => number = Math.random): Promise<number> {
  const end = Math.min(ephemeralRangeStart(), DEFAULT_EPHEMERAL_START);
  if (end - LOWEST < 1_000) return anyFreePort();
  for (let i = 0; i < ATTEMPTS; i++) {
    const port = LOWEST + Math.floor(random() * (end - LOWEST));
    if (await canListen(port)) return port;
  }
  return anyFreePort();
}
