import { main } from './base.mjs';

await main({ longForms: true });
