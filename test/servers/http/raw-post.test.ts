import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { type RawPost, rawPost, watchRequests } from './raw-post.js';

// The request-limit tests wait on watchRequests instead of a fixed sleep: it must count the
// requests whose headers the server parsed, those only, and say so when they do not come.

const servers: Server[] = [];
const posts: RawPost[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const p of posts.splice(0)) p.socket.destroy();
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise((resolve) => s.close(resolve));
    }),
  );
});

/** A server that never answers: each request stays open, as a held body does. */
async function silent(): Promise<string> {
  const server = createServer(() => {});
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('resolves once the server parsed the requests sent since the watch began', async () => {
  const url = await silent();
  const earlier = watchRequests(url);
  posts.push(rawPost(url, '/', ['content-length: 10'], '{'));
  await earlier.until(1);
  const arrivals = watchRequests(url);
  for (let i = 0; i < 3; i++) posts.push(rawPost(url, '/', ['content-length: 10'], '{'));
  await arrivals.until(3);
  await expect(arrivals.until(4, 300)).rejects.toThrow(/expected 4 requests .* 3 arrived/);
});

test('a connection whose headers are not complete is not a request yet', async () => {
  const url = await silent();
  const other = await silent();
  const arrivals = watchRequests(url);
  posts.push(rawPost(other, '/', ['content-length: 10'], '{'));
  // The blank line that ends the headers is never sent.
  const partial = connect(Number(new URL(url).port), '127.0.0.1');
  partial.on('error', () => {});
  partial.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-length: 10\r\n');
  sockets.push(partial);
  await expect(arrivals.until(1, 300)).rejects.toThrow(
    /expected 1 requests at the server on port \d+ within 300 ms, 0 arrived/,
  );
});
