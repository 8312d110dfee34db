import { main } from './base.mjs';

main({ crashOnNegative: true });
