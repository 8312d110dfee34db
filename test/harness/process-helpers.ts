import { readdirSync, readFileSync } from 'node:fs';

/** Live (not zombie) processes whose command line has `arg` as one of its arguments. */
export function liveNow(arg: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline: string;
    let stat: string;
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    if (!cmdline.split('\0').includes(arg)) continue;
    if (!isZombie(stat)) found.push(Number(name));
  }
  return found;
}

/** Those of `pids` still alive (not zombies). */
export function stillAlive(pids: readonly number[]): number[] {
  return pids.filter((pid) => {
    try {
      return !isZombie(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  });
}

function isZombie(stat: string): boolean {
  const end = stat.lastIndexOf(')');
  return stat.slice(end + 2, end + 3) === 'Z';
}

/** Polls until `count` processes carry `arg`, for at most 5 s; the first one's pid. */
export async function waitForLive(arg: string, count = 1): Promise<number> {
  for (let i = 0; i < 250; i++) {
    const live = liveNow(arg);
    if (live.length >= count) return live[0] as number;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no process with argument ${arg} appeared within 5 s`);
}

/** Polls until no process carries `arg` or `ms` pass; those still alive. */
export async function liveWith(arg: string, ms: number): Promise<number[]> {
  const until = performance.now() + ms;
  for (;;) {
    const live = liveNow(arg);
    if (live.length === 0 || performance.now() >= until) return live;
    await new Promise((r) => setTimeout(r, 20));
  }
}
