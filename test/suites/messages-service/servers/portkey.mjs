// Portkey's AI gateway (npm @portkey-ai/gateway) as a messages-service target, for the interop
// tests: its own server, bound to 127.0.0.1 (it has no host option and listens on every
// interface otherwise), headless (no web UI), on the port `--port=N` names:
//   node portkey.mjs --port=N
// A request reaches the Anthropic-format route (`POST /v1/messages`) of the gateway, which
// forwards it to the provider its `x-portkey-provider` header names, at the
// `x-portkey-custom-host` header's URL.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(port, ...rest) {
  if (typeof port !== 'number') return listen.call(this, port, ...rest);
  // listen(port[, host][, callback]): the host, if any, is replaced.
  const after = typeof rest[0] === 'function' ? rest : rest.slice(1);
  return listen.call(this, port, '127.0.0.1', ...after);
};
process.argv.push('--headless');
await import('@portkey-ai/gateway/build/start-server.js');
process.on('SIGTERM', () => process.exit(0));
