// The independent client (base.mjs) with the GET that opens the SSE stream carrying another
// Accept header:
//   node sse-accept.mjs [ACCEPT]
// sends `Accept: ACCEPT`, or, without an argument, no Accept header at all.
import { main } from './base.mjs';
import { openStreamWith } from './stream-accept.mjs';

openStreamWith(process.argv[2]);
await main({ noAccept: true });
