import { main } from './base.mjs';

main({ slowOnNegative: 4000 });
