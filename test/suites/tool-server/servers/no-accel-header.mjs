import { main } from './base.mjs';

main({ noAccelHeader: true });
