import { main } from './base.mjs';

main({ httpWrongLastEventId: true });
