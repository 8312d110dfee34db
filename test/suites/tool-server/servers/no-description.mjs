import { main } from './base.mjs';

main({ noDescription: true });
