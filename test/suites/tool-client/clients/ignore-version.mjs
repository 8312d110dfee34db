import { main } from './base.mjs';

main({ ignoreVersion: true });
