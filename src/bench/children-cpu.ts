import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc gives process times in these ticks (100 on every mainstream architecture). */
const TICKS_PER_S = 100;

/**
 * The CPU time (ms) of the children a process has waited for, theirs included, from the text of
 * its /proc/<pid>/stat: fields 16 and 17 (cutime, cstime). Undefined when the text is not that.
 */
export function waitedChildrenCpuMsOf(statText: string): number | undefined {
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  const close = statText.lastIndexOf(')');
  if (close < 0) return undefined;
  // Field 3 (the state) comes first after the name: field n is at index n - 3.
  const fields = statText
    .slice(close + 2)
    .trim()
    .split(' ');
  const cutime = Number(fields[16 - 3]);
  const cstime = Number(fields[17 - 3]);
  if (!Number.isInteger(cutime) || !Number.isInteger(cstime)) return undefined;
  return ((cutime + cstime) * 1000) / TICKS_PER_S;
}

/**
 * The CPU time (ms) of every child this process has waited for so far, and of their waited-for
 * children (a target command, the processes it started and waited for); undefined off Linux.
 * Processes nobody waited for (killed leftovers) are not in it.
 */
export function waitedChildrenCpuMs(): number | undefined {
  try {
    return waitedChildrenCpuMsOf(readFileSync('/proc/self/stat', 'utf8'));
  } catch {
    return undefined;
  }
}
