import { main } from './base.mjs';

main({ hangOnNegative: true });
