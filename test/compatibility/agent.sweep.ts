import { agentSuite } from '../../src/suites/agent/index.js';
import { sweep } from './sweep.js';
import { AGENTS } from './targets.js';

sweep('agent', agentSuite, AGENTS);
