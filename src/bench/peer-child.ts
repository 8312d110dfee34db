import { type PeerSizes, peerStreams, type ServerKind, startPeer } from './peer-servers.js';

/**
 * One server in a process of its own, so that its memory can be read from /proc: argv[2]
 * is `{"kind", "sizes"}`; prints `{"url"}` when listening; closes and exits when stdin
 * ends. Every kind loads the same modules (this file imports them all), so the memory
 * rows compare what serving costs, not the size of the code loaded.
 */
const { kind, sizes } = JSON.parse(process.argv[2] ?? '{}') as { kind: ServerKind; sizes: PeerSizes };
const server = await startPeer(kind, peerStreams(sizes));
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
process.stdin.on('end', () => {
  server.close().finally(() => process.exit(0));
});
process.stdin.resume();
