import { main } from './base.mjs';

main({ replyInBodyAfterInitialize: true });
