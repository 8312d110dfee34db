import { main } from './base.mjs';

main({ httpSseOnly: true });
