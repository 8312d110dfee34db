import { main } from './base.mjs';

main({ noAwait: true });
