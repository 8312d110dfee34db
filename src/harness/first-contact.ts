/**
 * Settled by the first `mark()`: the moment a target first reached its peer (a case's mock),
 * for runCommand's `restartTimeoutOn`. Later marks change nothing.
 */
export function firstContact(): { readonly reached: Promise<void>; mark(): void } {
  let mark: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    mark = resolve;
  });
  return { reached, mark: () => mark() };
}
