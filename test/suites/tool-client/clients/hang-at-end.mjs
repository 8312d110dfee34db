import { main } from './base.mjs';

main({ hangAtEnd: true });
