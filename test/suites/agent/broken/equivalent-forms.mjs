import { main } from './base.mjs';

await main({ equivalentForms: true });
