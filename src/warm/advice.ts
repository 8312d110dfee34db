/**
 * What a client suite's summary line says when starting the client fills a third or more of the
 * suite's time: the kit that keeps a client loaded between cases (docs/warm-targets.md).
 */
export const KEEP_CLIENT_WARM =
  'keep it loaded between cases: startWarmServer and the warm relay, docs/warm-targets.md';
