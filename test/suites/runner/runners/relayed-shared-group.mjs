import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// A runner behind a relay (as `docker exec -i` or ssh puts one), in a session of its own, whose
// commands run in its group: its stdin and stdout are the relay's pipes, not the harness's.
const child = spawn(
  'setsid',
  [process.execPath, fileURLToPath(new URL('./ignore-process-group.mjs', import.meta.url))],
  {
    stdio: ['pipe', 'pipe', 'inherit'],
  },
);
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
