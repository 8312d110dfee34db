import { main } from './base.mjs';

main({ newerRevisionAlways: true });
