// A Streamable HTTP client (plain Node, no wirecheck code) with credentials hard-coded, as from a
// config file wirecheck never sees: `Authorization: Bearer <TOKEN>` and `Cookie: sid=<COOKIE>`
// on every request. It repeats both where a report quotes it: in its clientInfo, in the call's
// arguments, in what it prints on stdout (the answer's body as it came, not the result alone)
// and on stderr. Over http only.
import http from 'node:http';

export const TOKEN = 'sk-ant-api03-SECRETSECRET1234567890';
export const COOKIE = 'COOKIESECRET777';

const url = new URL(process.env.WIRECHECK_SERVER_URL);
const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${TOKEN}`,
  cookie: `sid=${COOKIE}`,
};
const post = (extra, body) =>
  new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { ...headers, ...extra } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (d) => {
        text += d;
      });
      response.on('end', () => resolve({ headers: response.headers, text }));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });

const init = await post(
  {},
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: `client ${TOKEN} ${COOKIE}`, version: '1' },
    },
  },
);
const session = { 'mcp-session-id': init.headers['mcp-session-id'] };
await post(session, { jsonrpc: '2.0', method: 'notifications/initialized' });
const call = await post(session, {
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: `${TOKEN} ${COOKIE}` } },
});
process.stdout.write(`${call.text}\n`);
process.stderr.write(`using token ${TOKEN} and cookie ${COOKIE}\n`);
