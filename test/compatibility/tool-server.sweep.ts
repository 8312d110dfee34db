import { toolServerSuite } from '../../src/suites/tool-server/index.js';
import { sweep } from './sweep.js';
import { TOOL_SERVERS } from './targets.js';

sweep('tool-server', toolServerSuite, TOOL_SERVERS);
