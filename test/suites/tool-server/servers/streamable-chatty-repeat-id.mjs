import { main } from './streamable-base.mjs';

main({ eventIds: true, noteEvents: 1500, repeatLastNote: true });
