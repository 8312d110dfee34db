import { main } from './base.mjs';

main({ failOnCancel: true });
