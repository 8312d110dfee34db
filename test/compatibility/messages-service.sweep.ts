import { messagesServiceSuite } from '../../src/suites/messages-service/index.js';
import { sweep } from './sweep.js';
import { MESSAGES_SERVICES } from './targets.js';

sweep('messages-service', messagesServiceSuite, MESSAGES_SERVICES);
