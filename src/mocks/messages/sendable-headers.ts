import { z } from 'zod';
import { nodeHttp } from '../../transports/node-http.js';

/**
 * What is wrong with the first header Node would refuse to send (a name that is not an
 * HTTP token, a value with a line break or a character above U+00FF), or undefined.
 * Checked before a reply starts: once Node throws in writeHead, a hijacked response can
 * only hang or be cut.
 */
export function unsendableHeader(headers: Readonly<Record<string, unknown>>): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    try {
      nodeHttp.validateHeaderName(name);
      nodeHttp.validateHeaderValue(name, value as string);
    } catch (e) {
      return `header ${JSON.stringify(name)} cannot be sent: ${(e as Error).message}`;
    }
  }
  return undefined;
}

/** Response headers a mock is told to send: names and values Node can put on the wire. */
export const SendableHeaders = z.record(z.string(), z.string()).superRefine((headers, ctx) => {
  const problem = unsendableHeader(headers);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
