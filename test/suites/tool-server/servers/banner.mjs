import { main } from './base.mjs';

main({ banner: true });
