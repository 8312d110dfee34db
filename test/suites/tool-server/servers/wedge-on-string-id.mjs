import { main } from './base.mjs';

main({ wedgeOnStringId: true });
