/**
 * After the suite closed a session to make room, how long a session refused for capacity is
 * asked again: the server learns of the closed session a moment later, not at once.
 */
export const ASK_AGAIN_MS = 1_000;

/**
 * When the suite last made room on a server that bounds its sessions: a check closed one it no
 * longer needed (ctx.makeRoom), the sessions kept for checks that all ended were closed
 * (SessionOwners.releaseDone), or the idle stream was let go (IdleStream.letGo). One window for
 * the three, so a refusal asks again after any of them and never lets more go than it needs.
 */
export class RoomMade {
  private at = Number.NEGATIVE_INFINITY;

  /** A session went just now. */
  mark(): void {
    this.at = performance.now();
  }

  /** Whether a session refused for capacity now may be asked again: one went within ASK_AGAIN_MS. */
  recently(): boolean {
    return performance.now() - this.at < ASK_AGAIN_MS;
  }
}
