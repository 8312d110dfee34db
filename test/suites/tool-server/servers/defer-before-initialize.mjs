import { main } from './base.mjs';

main({ deferBeforeInitialize: true });
