import { main } from './base.mjs';

main({ post200: true });
