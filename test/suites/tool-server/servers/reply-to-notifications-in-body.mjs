import { main } from './base.mjs';

main({ replyToNotificationsInBody: true });
