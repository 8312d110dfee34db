/**
 * The harness's answers to a server's own requests POSTed at once on one session at most. Each
 * is held until the server answers the POST (or its timeout): a server flooding requests while
 * it leaves those POSTs unread would otherwise hold a socket and a body per request.
 */
export const MAX_ANSWERS_IN_FLIGHT = 16;

/**
 * A peer's `respond` over HTTP: each answer POSTed with `send`, at most MAX_ANSWERS_IN_FLIGHT at
 * once; past them the server's request goes unanswered.
 */
export function cappedAnswers(send: (text: string) => Promise<unknown>): (message: unknown) => void {
  let inFlight = 0;
  return (message) => {
    if (inFlight >= MAX_ANSWERS_IN_FLIGHT) return;
    inFlight += 1;
    void send(JSON.stringify(message)).finally(() => {
      inFlight -= 1;
    });
  };
}
