import { createServer } from 'node:net';
import { describe, expect, test } from 'vitest';
import { ephemeralRangeStart, portForServerStart } from '../../src/harness/server-port.js';

describe('a port for a server the harness starts on it', () => {
  test("reads the start of the kernel's ephemeral range, with Linux's default where it cannot", () => {
    expect(ephemeralRangeStart('32768\t60999\n')).toBe(32768);
    expect(ephemeralRangeStart('40000 50000')).toBe(40000);
    expect(ephemeralRangeStart('garbage')).toBe(32768);
  });

  test('lies below the ephemeral range (where no port-0 listener is put) and can be listened on', async () => {
    const port = await portForServerStart();
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(Math.min(ephemeralRangeStart(), 32_768));
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port }, () => resolve());
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('a port already taken is passed over', async () => {
    const taken = createServer();
    const takenPort = await new Promise<number>((resolve, reject) => {
      taken.once('error', reject);
      // The first pick of the fixed draws below.
      taken.listen({ host: '127.0.0.1', port: 20_000 }, () => resolve(20_000));
    }).catch(() => undefined);
    try {
      const draws = [0, 0.5];
      const port = await portForServerStart(() => draws.shift() ?? 0.25);
      // 20000 is taken (by this test, or by someone else already): the next draw is used.
      expect(port).toBe(20_000 + Math.floor(0.5 * (Math.min(ephemeralRangeStart(), 32_768) - 20_000)));
    } finally {
      await new Promise<void>((resolve) =>
        takenPort === undefined ? resolve() : taken.close(() => resolve()),
      );
    }
  });
});
