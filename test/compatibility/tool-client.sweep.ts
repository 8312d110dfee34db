import { toolClientSuite } from '../../src/suites/tool-client/index.js';
import { sweep } from './sweep.js';
import { TOOL_CLIENTS } from './targets.js';

sweep('tool-client', toolClientSuite, TOOL_CLIENTS);
