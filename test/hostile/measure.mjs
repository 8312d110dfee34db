// Runs the built wirecheck CLI (dist/) with the given arguments, then writes the process's
// peak resident memory (process.resourceUsage().maxRSS, in KiB) to $WIRECHECK_MAXRSS_FILE.
//   node test/hostile/measure.mjs test tool-server --stdio ...
import { writeFileSync } from 'node:fs';
import { main } from '../../dist/cli/main.js';

const code = await main(process.argv);
writeFileSync(process.env.WIRECHECK_MAXRSS_FILE, String(process.resourceUsage().maxRSS));
process.exitCode = code;
