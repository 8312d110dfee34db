import { main } from './streamable-base.mjs';

main({ newestAnswer: true });
