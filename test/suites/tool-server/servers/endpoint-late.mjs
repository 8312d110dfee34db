import { main } from './base.mjs';

main({ endpointLate: true });
