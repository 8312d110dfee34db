#!/usr/bin/env node
import { exitUnlessSupportedNode } from './node-version.js';

// Checked before dist/ is loaded: an older Node fails there in ways that do not name the cause.
exitUnlessSupportedNode();
const { main } = await import('../dist/bench/main.js');
process.exitCode = await main(process.argv);
