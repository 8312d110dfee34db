import { readFileSync, writeFileSync } from 'node:fs';

export const MIB = 1024 * 1024;

/** VmRSS or VmHWM of a process in bytes, undefined when it cannot be read. */
export function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** How a peak was taken: the kernel's high-water mark, or the parent's samples every 5 ms. */
export type PeakMethod = 'VmHWM' | 'sampled';

/**
 * The peak RSS of another process over a stretch of time. It resets the kernel's
 * high-water mark (`5` into /proc/<pid>/clear_refs, Linux >= 4.0) and reads VmHWM at the
 * end; where that is not allowed it samples VmRSS every 5 ms instead.
 */
export class PeakMeter {
  readonly method: PeakMethod;
  private sampled = 0;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(private readonly pid: number) {
    let reset = false;
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      reset = statusBytes(pid, 'VmHWM') !== undefined;
    } catch {
      reset = false;
    }
    this.method = reset ? 'VmHWM' : 'sampled';
    if (!reset) {
      const sample = () => {
        this.sampled = Math.max(this.sampled, statusBytes(pid, 'VmRSS') ?? 0);
      };
      sample();
      this.timer = setInterval(sample, 5);
    }
  }

  /** Bytes: the highest RSS since the meter was made. */
  stop(): number {
    if (this.timer) clearInterval(this.timer);
    if (this.method === 'VmHWM') return statusBytes(this.pid, 'VmHWM') ?? 0;
    this.sampled = Math.max(this.sampled, statusBytes(this.pid, 'VmRSS') ?? 0);
    return this.sampled;
  }
}
