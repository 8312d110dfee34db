import { main } from './base.mjs';

main({ noAccept: true });
