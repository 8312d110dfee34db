import { main } from './base.mjs';

main({ otherVersion: true });
