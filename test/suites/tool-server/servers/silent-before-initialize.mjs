import { main } from './base.mjs';

main({ silentBeforeInitialize: true });
