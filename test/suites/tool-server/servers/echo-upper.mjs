import { main } from './base.mjs';

main({ echoUpper: true });
