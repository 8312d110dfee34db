import { main } from './base.mjs';

main({ diagnosticHello: true });
