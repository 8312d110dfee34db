import { main } from './base.mjs';

main({ httpNoReinitialize: true });
