/**
 * Wait for `promise`, or `ms` at most: true when it settled in time. The timer is cleared
 * when the promise wins, so a finished wait never keeps the process alive (a left timer held
 * every `wirecheck` run open for half a second after its last target exited).
 */
export async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
