import { main } from './base.mjs';

main({ reuseSessionId: true });
