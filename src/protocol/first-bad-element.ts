import type { z } from 'zod';

/**
 * Judging a value that holds a long array from a peer. zod reports every bad element of an
 * array, one issue each (about 1.1 KB for a union), so a million bad elements, a line of a few
 * MB, cost a gigabyte of heap to describe and killed wirecheck with no report. The elements are
 * judged one at a time first, and the value is parsed with its array cut after the first bad
 * one: kept, so the parse names it, with a note saying that the elements after it were not judged.
 */

/** A value to parse: `value`, or a copy with its array cut; `note` says what was cut ('' when nothing was). */
export interface CutValue {
  readonly judged: unknown;
  readonly note: string;
}

/** The index of the first element `element` refuses, or -1. Stops there: the elements after it are not looked at. */
export function firstBadElement(items: readonly unknown[], element: z.ZodType): number {
  return items.findIndex((item) => !element.safeParse(item).success);
}

/**
 * `value` with its array `field` cut after the first element `element` refuses, and a note
 * naming that element (`content.3 is the first bad block of 1000000; ...`). `value` itself and
 * no note when the field is no array, no element is refused, or only the last one is.
 */
export function cutAtFirstBad(value: unknown, field: string, element: z.ZodType, noun = 'element'): CutValue {
  const items = (value as Record<string, unknown> | null | undefined)?.[field];
  if (!Array.isArray(items)) return { judged: value, note: '' };
  const bad = firstBadElement(items, element);
  if (bad === -1 || bad === items.length - 1) return { judged: value, note: '' };
  return {
    judged: { ...(value as object), [field]: items.slice(0, bad + 1) },
    note: ` (${field}.${bad} is the first bad ${noun} of ${items.length}; the ${noun}s after it were not judged)`,
  };
}

/**
 * `schema.safeParse(value)` with its array `field` cut at the first bad element (cutAtFirstBad),
 * and the note to add to the failure's message. The verdict is always the schema's: where the
 * cut value passes (an `element` stricter than the schema's own), the whole value is parsed.
 */
export function safeParseCut<S extends z.ZodType>(
  schema: S,
  value: unknown,
  field: string,
  element: z.ZodType,
  noun?: string,
): { parsed: z.ZodSafeParseResult<z.output<S>>; note: string } {
  const { judged, note } = cutAtFirstBad(value, field, element, noun);
  if (judged === value) return { parsed: schema.safeParse(value), note: '' };
  const parsed = schema.safeParse(judged);
  if (parsed.success) return { parsed: schema.safeParse(value), note: '' };
  return { parsed, note };
}

/**
 * zod's own early stop: a container stops at its first bad element, where by default every bad
 * element is described (one issue each; a list of a million, a few MB from a peer, overflowed
 * zod's stack). zod 4.6 reads it from the parse context, as its `validate` does; a record does
 * not stop early (safeParseTool judges one property at a time for that).
 */
const FIRST_ISSUE = { abortEarly: true } as z.core.ParseContext<z.core.$ZodIssue>;

/** `schema.safeParse(value)`, the same verdict, with arrays described up to their first bad element. */
export function safeParseFirstIssue<S extends z.ZodType>(
  schema: S,
  value: unknown,
): z.ZodSafeParseResult<z.output<S>> {
  return schema.safeParse(value, FIRST_ISSUE);
}
