import { main } from './base.mjs';

main({ httpAcceptJsonOnly: true });
