import { main } from './base.mjs';

main({ echoSwapped: true });
