import type { AddressInfo } from 'node:net';
import { createMockMessagesApp } from './build.js';
import type { MockMessagesOptions, MockMessagesService } from './options.js';

/** The mock messages service, listening (default 127.0.0.1, a free port; backlog 4096 for bursts of connects). */
export async function startMockMessagesService(
  opts: MockMessagesOptions & { host?: string; port?: number } = {},
): Promise<MockMessagesService> {
  const { host = '127.0.0.1', port = 0, ...rest } = opts;
  const { app, state } = createMockMessagesApp({ host, ...rest });
  await app.listen({ host, port, backlog: 4096 });
  const address = app.server.address() as AddressInfo;
  const shown =
    address.address === '0.0.0.0' || address.address === '::'
      ? '127.0.0.1'
      : address.family === 'IPv6'
        ? `[${address.address}]`
        : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    journal: state.journal,
    setScenario: (scenario) => state.setScenario(scenario),
    setFaults: (faults) => state.setFaults(faults),
    close: async () => {
      state.closing = true;
      await app.close();
    },
    app,
  };
}
