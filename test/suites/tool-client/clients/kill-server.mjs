import { main } from './base.mjs';

main({ killServer: true });
