import { main } from './streamable-base.mjs';

main({ getJson: true });
