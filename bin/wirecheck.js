#!/usr/bin/env node
import module from 'node:module';
import { exitUnlessSupportedNode } from './node-version.js';

// Checked before dist/ is loaded: an older Node fails there in ways that do not name the cause.
exitUnlessSupportedNode();
// The reference targets (`wirecheck messages-client`, `run-bash`, `agent`, `tool-client`) start
// once per case: V8's code cache on disk (Node's own, under the temp directory) makes each
// start cheaper. See docs/performance.md.
module.enableCompileCache?.();
// A reader that goes away (`wirecheck list | head`) is not an error of wirecheck. A per-case
// target whose harness closed its output has no one left to answer: it ends quietly. The CLI
// goes on without that stream (a stream that failed drops what is written to it): a run has no
// verdict yet, and ending then with status 0 and no report read as a pass in a pipeline whose log
// reader died; it writes its reports and ends with the run's own status, a listing with its own.
let endOnClosedOutput = true;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code !== 'EPIPE') throw e;
    if (endOnClosedOutput) process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
}
// A command a suite starts once per case (`messages-client`, `agent`, `tool-client`, `run-bash`,
// `serve tools`) loads only what it runs, not the whole CLI. Both come from bundles
// (rolldown.config.ts): a few files instead of the hundreds of modules they are made of.
const { targetCommandOf, targetMain } = await import('../dist/bundle/target-main.js');
if (targetCommandOf(process.argv) !== undefined) {
  process.exitCode = await targetMain(process.argv);
} else {
  endOnClosedOutput = false;
  const { main } = await import('../dist/bundle/cli-main.js');
  process.exitCode = await main(process.argv);
}
