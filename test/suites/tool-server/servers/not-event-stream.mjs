import { main } from './base.mjs';

main({ notEventStream: true });
