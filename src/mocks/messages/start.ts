import type { AddressInfo } from 'node:net';
import { originOf } from '../../servers/http/listen.js';
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
  return {
    url: originOf(address),
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
