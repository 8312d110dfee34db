import { runnerSuite } from '../../src/suites/runner/index.js';
import { sweep } from './sweep.js';
import { RUNNERS } from './targets.js';

sweep('runner', runnerSuite, RUNNERS);
