import { main } from './base.mjs';

main({ killFirst: true });
