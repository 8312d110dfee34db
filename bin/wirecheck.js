#!/usr/bin/env node
import { exitUnlessSupportedNode } from './node-version.js';

// Checked before dist/ is loaded: an older Node fails there in ways that do not name the cause.
exitUnlessSupportedNode();
// A reader that goes away (`wirecheck list | head`) is not an error of wirecheck: stop quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
}
const { main } = await import('../dist/cli/main.js');
process.exitCode = await main(process.argv);
