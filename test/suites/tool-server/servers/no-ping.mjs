import { main } from './base.mjs';

main({ noPing: true });
