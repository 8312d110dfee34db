import { main } from './base.mjs';

main({ httpNoSessionId: true });
