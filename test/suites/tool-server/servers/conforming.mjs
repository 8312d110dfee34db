import { main } from './base.mjs';

main({});
