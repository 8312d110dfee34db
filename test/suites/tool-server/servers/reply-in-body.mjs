import { main } from './base.mjs';

main({ replyInBody: true });
