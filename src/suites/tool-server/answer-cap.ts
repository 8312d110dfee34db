/**
 * The harness's answers to a server's own requests POSTed at once on one session at most. Each
 * is held until the server answers the POST (or its timeout): a server flooding requests while
 * it leaves those POSTs unread would otherwise hold a socket and a body per request.
 */
export const MAX_ANSWERS_IN_FLIGHT = 16;
/**
 * Answers waiting for one of those POSTs to end: a burst of a server's requests is answered in
 * turn (an answer is an id of at most 1 KiB and a short text); past them a request goes unanswered.
 */
export const MAX_ANSWERS_QUEUED = 1024;

/**
 * A peer's `respond` over HTTP: each answer POSTed with `send`, at most MAX_ANSWERS_IN_FLIGHT at
 * once, the next ones queued (at most MAX_ANSWERS_QUEUED) and sent as those end.
 */
export function cappedAnswers(send: (text: string) => Promise<unknown>): (message: unknown) => void {
  let inFlight = 0;
  const queued: string[] = [];
  const sendNext = (): void => {
    while (inFlight < MAX_ANSWERS_IN_FLIGHT && queued.length > 0) {
      const text = queued.shift() as string;
      inFlight += 1;
      void send(text).finally(() => {
        inFlight -= 1;
        sendNext();
      });
    }
  };
  return (message) => {
    if (queued.length >= MAX_ANSWERS_QUEUED) return;
    queued.push(JSON.stringify(message));
    sendNext();
  };
}
