// The conforming test client speaking every MCP revision, for the --protocol tests:
//   node revisions.mjs ASK negotiated|requested
// asks for ASK in initialize, goes on with any of the four revisions, and over SSE sends
// MCP-Protocol-Version after initialize: the version the server answered (negotiated), or,
// the flaw, the one it asked for (requested).
import { main } from './base.mjs';

const [ask = '2024-11-05', header = 'negotiated'] = process.argv.slice(2);
await main({
  protocolVersion: ask,
  speaks: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'],
  versionHeader: header,
});
