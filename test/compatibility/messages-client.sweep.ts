import { messagesClientSuite } from '../../src/suites/messages-client/index.js';
import { sweep } from './sweep.js';
import { MESSAGES_CLIENTS } from './targets.js';

sweep('messages-client', messagesClientSuite, MESSAGES_CLIENTS);
