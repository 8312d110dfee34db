import { main } from './streamable-base.mjs';

main({ unknown200: true });
