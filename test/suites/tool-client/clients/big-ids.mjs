import { main } from './base.mjs';

// Integer request ids from 2^53 up, written and matched with every digit (JSON-RPC ids are any
// number; a client with 64-bit integers may use such ids): a conforming client.
await main({ bigIds: true });
