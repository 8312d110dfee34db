import { toolServerSuite } from '../../src/suites/tool-server/index.js';
import { sweep } from './sweep.js';
import { TOOL_SERVERS_HTTP } from './targets.js';

sweep('tool-server-http', toolServerSuite, TOOL_SERVERS_HTTP);
