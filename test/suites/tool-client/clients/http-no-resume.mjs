import { main } from './base.mjs';

main({ httpNoResume: true });
