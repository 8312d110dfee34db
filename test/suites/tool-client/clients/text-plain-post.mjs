import { main } from './base.mjs';

main({ textPlainPost: true });
