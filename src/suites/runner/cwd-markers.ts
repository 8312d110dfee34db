// The files the runner checks' commands make where they run. A runner that ignores
// WIRECHECK_WORKDIR makes them in the user's directory: each has a `wirecheck` name, so the
// suite can remove them there (harness/stray-markers.ts).

/** `pwd -P; touch` of the identity session: shows where commands run. */
export const WAS_HERE = 'wirecheck-was-here';
/** Written by the setsid escapee of the leftovers session once it is in a session of its own. */
export const ESCAPED = '.wirecheck-escaped';
/** Written by the TERM trap of the term-grace case. */
export const TERM_SEEN = 'wirecheck-term-seen.txt';

/**
 * What the n-th refusal probe touches first: it exists only if the probe was executed. A runner
 * may quote the probe in its answer, so the name holds none of the words a refusal text is
 * judged by (SECURITY_VIOLATION): a quote of it must never read as a refusal.
 */
export function probeMarker(n: number): string {
  return `wirecheck-probe-${n}`;
}

export function isRunnerMarker(name: string): boolean {
  return name === WAS_HERE || name === ESCAPED || name === TERM_SEEN || /^wirecheck-probe-\d+$/.test(name);
}
