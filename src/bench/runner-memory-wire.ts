import { z } from 'zod';
import { ISOLATION_LEVELS } from '../runner/index.js';

/** What the memory child is told to do (its one argument, as JSON). */
export const MemoryChildConfig = z.object({
  /** `runner`: the runner runs `head -c BYTES /dev/zero`; `bare`: the child spawns it and reads it itself. */
  mode: z.enum(['runner', 'bare']),
  bytes: z.number().int().positive(),
  /** Commands measured one after the other, each from its own reset peak. */
  commands: z.number().int().min(1).max(10),
  workdir: z.string().min(1),
  isolation: z.enum([...ISOLATION_LEVELS, 'auto']),
});
export type MemoryChildConfig = z.infer<typeof MemoryChildConfig>;

/** The memory child's one line of stdout. */
export const MemoryChildReport = z.object({
  /** The level the runner chose (also in `bare` mode: the child holds a runner either way). */
  isolation: z.enum(ISOLATION_LEVELS),
  /** `VmHWM`: the kernel's peak, reset through /proc/self/clear_refs; `sampled`: RSS read every 5 ms. */
  method: z.enum(['VmHWM', 'sampled']),
  /** RSS when each measured command started. */
  rssBeforeBytes: z.array(z.number()),
  /** Peak RSS during each command minus the RSS when it started. */
  growthBytes: z.array(z.number()),
});
export type MemoryChildReport = z.infer<typeof MemoryChildReport>;
