import { join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';

/** The relay a warm target's cases run: `perl WARM_RELAY_PATH SOCKET` (bin/warm-relay.pl). */
export const WARM_RELAY_PATH: string = join(PACKAGE_ROOT, 'bin', 'warm-relay.pl');
