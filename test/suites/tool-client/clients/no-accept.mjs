// The flaw: the GET that opens the SSE stream carries no Accept header at all (through
// node:http: fetch would add `Accept: */*`, which admits text/event-stream).
import { main } from './base.mjs';
import { openStreamWith } from './stream-accept.mjs';

openStreamWith(undefined);
await main({ noAccept: true });
