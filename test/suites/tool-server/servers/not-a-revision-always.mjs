import { main } from './base.mjs';

main({ newerRevisionAlways: 'latest' });
