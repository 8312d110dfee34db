import { main } from './base.mjs';

main({ routeUnknownToFirst: true });
