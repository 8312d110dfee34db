import { main } from './base.mjs';

main({ replyToNotifications: true });
