/**
 * What a thrown value says, for a journal note: its message, or the value as text. Read in a
 * catch that must still cut the stream and note why, so reading it never throws again (a
 * value whose conversion to text throws is named, not converted).
 */
export function thrownMessage(e: unknown): string {
  try {
    return e instanceof Error ? e.message : String(e);
  } catch {
    return 'a thrown value that is neither an Error nor convertible to text';
  }
}
