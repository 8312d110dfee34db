// The conforming server behind a bearer token, as an SSE tool server may be: every request
// (GET, POST, DELETE) without `Authorization: Bearer t0ken-secret-123` is answered 401, with a
// body that echoes the token expected and the Authorization received (as careless servers do),
// so a test can see that neither reaches a report.
//
//   node bearer-auth.mjs --transport sse --port N     (SSE + POST: base.mjs)
//   node bearer-auth.mjs --transport http --port N    (Streamable HTTP: streamable-base.mjs)
//   --endpoint-host H (SSE): the endpoint event names http://H:N/messages..., another origin
import http from 'node:http';

export const TOKEN = 't0ken-secret-123';

const createServer = http.createServer;
// The base servers call http.createServer(handler) when main() runs: the gate goes in front.
http.createServer = (handler) =>
  createServer((req, res) => {
    if (req.headers.authorization === `Bearer ${TOKEN}`) return handler(req, res);
    res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' });
    res.end(
      `unauthorized: expected Authorization: Bearer ${TOKEN}, got ${req.headers.authorization ?? 'none'}`,
    );
  });

const argv = process.argv.slice(2);
const transport = argv[argv.indexOf('--transport') + 1];
const { main } = await import(transport === 'http' ? './streamable-base.mjs' : './base.mjs');
const host = argv.indexOf('--endpoint-host');
main(host < 0 ? {} : { endpointHost: argv[host + 1] });
