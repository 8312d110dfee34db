import { main } from './base.mjs';

main({ noToolsCapability: true });
