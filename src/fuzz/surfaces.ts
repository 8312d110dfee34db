import { type FuzzSurface, surface } from './surface.js';
import { lineLimitsSurface } from './surfaces/line-limits.js';
import { mockMessagesHttp } from './surfaces/mock-messages-http.js';
import { mockScenarioReplies } from './surfaces/mock-scenario-replies.js';
import { runnerJsonLines } from './surfaces/runner-json-lines.js';
import { sseDecoderSurface } from './surfaces/sse-decoder.js';
import { sseLimitsSurface } from './surfaces/sse-limits.js';
import { streamReducerSurface } from './surfaces/stream-reducer.js';
import { toolServerSse } from './surfaces/tool-server-sse.js';
import { toolServerStdio } from './surfaces/tool-server-stdio.js';

/** Every fuzz surface, in the order `npm run fuzz` runs them. Add a surface with one line here. */
export const SURFACES: readonly FuzzSurface[] = [
  surface(sseDecoderSurface),
  surface(sseLimitsSurface),
  surface(lineLimitsSurface),
  surface(streamReducerSurface),
  surface(mockMessagesHttp),
  surface(mockScenarioReplies),
  surface(runnerJsonLines),
  surface(toolServerStdio),
  surface(toolServerSse),
];

export function findSurface(
  name: string,
  surfaces: readonly FuzzSurface[] = SURFACES,
): FuzzSurface | undefined {
  return surfaces.find((s) => s.name === name);
}
