import { main } from './base.mjs';

main({ echoVersion: true });
