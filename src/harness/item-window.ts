/** The items of a long picture that are drawn: a window around the mark (or the start), plus the last one. */
export interface ItemWindow<T> {
  /** Items drawn, with their index in the full list. */
  readonly items: readonly { readonly item: T; readonly index: number }[];
  /** Items left out, for a note. */
  readonly omitted: number;
}

/** At most `max` items: a window centred on `mark` (or from the start), the last item always kept. */
export function windowAround<T>(all: readonly T[], mark: number | undefined, max: number): ItemWindow<T> {
  if (all.length <= max) return { items: all.map((item, index) => ({ item, index })), omitted: 0 };
  const centre = mark !== undefined && mark < all.length ? mark : 0;
  // The window is drawn from all but the last item, so a window reaching the end still shows `max`.
  let from = Math.max(0, centre - Math.floor(max / 2));
  const to = Math.min(all.length - 1, from + max - 1);
  from = Math.max(0, to - (max - 1));
  const indexes = Array.from({ length: to - from }, (_, k) => from + k);
  indexes.push(all.length - 1);
  return {
    items: indexes.map((index) => ({ item: all[index]!, index })),
    omitted: all.length - indexes.length,
  };
}
