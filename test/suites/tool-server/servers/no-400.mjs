import { main } from './base.mjs';

main({ no400: true });
