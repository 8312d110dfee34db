import { z } from 'zod';
import { UsageError } from '../harness/errors.js';

/**
 * Parse with a zod schema; a failure is a UsageError naming each bad value. `label` names
 * the option a nested value came from (e.g. `--faults`), so the path inside it is shown.
 */
export function parseOptions<S extends z.ZodType>(schema: S, raw: unknown, label?: string): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const values = (raw ?? {}) as Record<string, unknown>;
  const problems = parsed.error.issues.map((issue) => {
    if (label !== undefined) return `${label}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`;
    const key = issue.path[0];
    const given = typeof key === 'string' ? values[key] : undefined;
    return given === undefined ? issue.message : `${issue.message} (got ${JSON.stringify(given)})`;
  });
  throw new UsageError(problems.join('; '));
}

/** A whole number given as a command-line string, within bounds. */
export function integer(flag: string, min: number, max: number) {
  return z
    .string()
    .regex(/^\s*\d+\s*$/, `${flag} takes a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(
      z.number().int().min(min, `${flag} must be at least ${min}`).max(max, `${flag} must be at most ${max}`),
    );
}
