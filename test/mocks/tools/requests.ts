/** The two requests the stdio mock tests send: an initialize (id 1) and a tools/call of `echo` (id 2). */
export const init = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
export const call = JSON.stringify({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'echo', arguments: { x: 1 } },
});
