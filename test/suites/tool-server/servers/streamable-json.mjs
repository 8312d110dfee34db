import { main } from './streamable-base.mjs';

main({ json: true });
