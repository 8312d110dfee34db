import { main } from './streamable-base.mjs';

main({ sessionErrorIn200: true });
