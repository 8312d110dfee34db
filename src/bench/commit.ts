import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The checkout the bench code runs from (src/bench or dist/bench, two levels down). */
const CHECKOUT = fileURLToPath(new URL('../..', import.meta.url));
const GIT_TIMEOUT_MS = 5_000;

/**
 * The commit the measured code was built from, with `-dirty` when tracked files differ from
 * it (as `git describe --dirty` says it); undefined outside a git checkout or without git.
 * Only a stamp on the rows: nothing may fail for want of it.
 */
export function checkedOutCommit(dir: string = CHECKOUT): string | undefined {
  const git = (args: string[]) =>
    execFileSync('git', ['-C', dir, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: GIT_TIMEOUT_MS,
      maxBuffer: 4096,
    });
  let head: string;
  try {
    head = git(['rev-parse', 'HEAD']).trim();
  } catch {
    return undefined;
  }
  if (!/^[0-9a-f]{40,64}$/.test(head)) return undefined;
  try {
    git(['diff', '--quiet', 'HEAD', '--']);
    return head;
  } catch {
    // Exit 1: tracked files differ from HEAD (or git failed; then the tree is not known clean).
    return `${head}-dirty`;
  }
}
