import { spawn } from 'node:child_process';
import { main } from './base.mjs';

// The one flaw: every run starts `sleep <--sleep>` as a plain child (in the server's own process
// group, not detached) and leaves it running when it exits on the end of its input. A signal to
// the group would end it; a client's signal to the server's pid, or none, does not.
const at = process.argv.indexOf('--sleep');
spawn('sleep', [at > 0 ? process.argv[at + 1] : '318'], { stdio: 'ignore' }).unref();
main({});
