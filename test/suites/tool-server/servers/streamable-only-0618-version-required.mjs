import { main } from './streamable-base.mjs';

main({ only0618: true, versionHeaderRequired: true });
