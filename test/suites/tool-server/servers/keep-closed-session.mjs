import { main } from './base.mjs';

main({ keepClosedSession: true });
