import { main } from './base.mjs';

// Its first request carries a 33 MiB system prompt; refused, it sends that request again without.
await main({ shrinkAfterTooLarge: true });
