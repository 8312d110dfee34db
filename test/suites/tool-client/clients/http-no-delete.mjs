import { main } from './base.mjs';

main({ httpNoDelete: true });
