import { UsageError } from '../harness/errors.js';

// Helpers for a registry entry's targetFromOptions. Kept apart from registry.ts, which
// imports every suite: a suite importing the registry back would make a cycle.

/** A required string target option: a UsageError names the flag when it is absent or empty. */
export function requiredStringOption(opts: Record<string, unknown>, key: string, flag: string): string {
  const value = opts[key];
  if (typeof value !== 'string' || value === '') throw new UsageError(`this suite needs ${flag}`);
  return value;
}

/** An optional string target option, or `fallback` when it is absent. */
export function stringOption(opts: Record<string, unknown>, key: string, fallback: string): string;
export function stringOption(opts: Record<string, unknown>, key: string): string | undefined;
export function stringOption(
  opts: Record<string, unknown>,
  key: string,
  fallback?: string,
): string | undefined {
  const value = opts[key];
  return typeof value === 'string' ? value : fallback;
}
