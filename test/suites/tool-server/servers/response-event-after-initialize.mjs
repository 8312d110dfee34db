import { main } from './base.mjs';

main({ responseEventAfterInitialize: true });
