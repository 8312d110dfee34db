import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** FIFOs made per `mkfifo` exec: one exec costs ~3 ms, too much to pay per command. */
const BATCH = 32;

/** One stream's FIFO, opened: the runner reads `readFd`, the command gets `writeFd`. */
export interface OpenFifo {
  readonly readFd: number;
  readonly writeFd: number;
}

/**
 * Fresh FIFOs for the commands' stdout and stderr, made in batches in the runner's private
 * directory. A FIFO (unlike Node's socketpair pipes) can be reopened through `/dev/stdout`,
 * and its read end can be read into one reused buffer. Each FIFO serves one command only,
 * so a leftover writer of an earlier command never reaches a later one. Mode 0622: the
 * command's uid must be able to reopen it; the name is unguessable and the directory
 * cannot be listed, so nobody else can find it.
 */
export class FifoPool {
  #ready: string[] = [];
  #making: Promise<void> | undefined;

  constructor(readonly dir: string) {}

  /** Two opened, already unlinked FIFOs; undefined when FIFOs cannot be made here. */
  async take(): Promise<[OpenFifo, OpenFifo] | undefined> {
    try {
      if (this.#ready.length < 2) await this.#refill();
      const paths = this.#ready.splice(0, 2);
      if (paths.length < 2) return undefined;
      const opened: OpenFifo[] = [];
      try {
        for (const path of paths) opened.push(openFifo(path));
      } catch {
        for (const fifo of opened) closeFifo(fifo);
        return undefined;
      } finally {
        for (const path of paths) unlinkQuietly(path);
      }
      return [opened[0]!, opened[1]!];
    } catch {
      return undefined;
    }
  }

  /** Unlinks the FIFOs made but not used. */
  async close(): Promise<void> {
    await this.#making?.catch(() => {});
    for (const path of this.#ready.splice(0)) unlinkQuietly(path);
  }

  #refill(): Promise<void> {
    this.#making ??= (async () => {
      const names = Array.from({ length: BATCH }, () =>
        join(this.dir, `output-${randomBytes(16).toString('hex')}.fifo`),
      );
      try {
        await run('mkfifo', ['-m', '0622', '--', ...names]);
        this.#ready.push(...names);
      } finally {
        this.#making = undefined;
      }
    })();
    return this.#making;
  }
}

/** The read end first, non-blocking (no writer yet), then the write end, which finds it. */
function openFifo(path: string): OpenFifo {
  const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    return { readFd, writeFd: openSync(path, constants.O_WRONLY) };
  } catch (error) {
    closeSync(readFd);
    throw error;
  }
}

export function closeFifo(fifo: OpenFifo): void {
  for (const fd of [fifo.readFd, fifo.writeFd]) {
    try {
      closeSync(fd);
    } catch {
      // Closed already.
    }
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}
