import { main } from './base.mjs';

main({ wrongSession: true });
