import { main } from './base.mjs';

main({ notEventStreamAfterInitialize: true });
