import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The origin a client reaches a listening server at: a wildcard address is shown as 127.0.0.1. */
export function originOf(address: AddressInfo): string {
  const shown =
    address.address === '0.0.0.0' || address.address === '::'
      ? '127.0.0.1'
      : address.family === 'IPv6'
        ? `[${address.address}]`
        : address.address;
  return `http://${shown}:${address.port}`;
}

/** Start `server` listening; resolves with its address once it listens, rejects when it cannot. */
export async function listenHttp(
  server: Server,
  options: { readonly host: string; readonly port: number; readonly backlog?: number },
): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server.address() as AddressInfo;
}
