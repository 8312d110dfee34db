import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Starts the runner of `flaws` as a launcher would (npx, uv run): as its child, with the
 * launcher's stdin and stdout, here in a session of its own (setsid), so the runner's group is
 * not the one the harness started the launcher in.
 */
export function launchInOwnSession(runnerFile) {
  const child = spawn('setsid', [process.execPath, fileURLToPath(runnerFile)], { stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
