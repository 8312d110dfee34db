import { isIP } from 'node:net';
import type { RequiredHeaders } from './required-headers.js';

/**
 * Which `Host` (and `Origin`) names a local server answers. A page on another site can
 * reach a server on 127.0.0.1 by DNS rebinding: its own name, resolved to 127.0.0.1 a
 * moment later, makes the browser send the request to us with `Host: attacker.example`
 * and read the answer as same-origin. Refusing every Host that is not a loopback name or
 * a name the server was configured with closes that door (the name is what the browser
 * sends, the address it resolved to is not visible).
 */
export interface HostPolicy {
  /** Lower-case host names (no port); IPv6 addresses in brackets. */
  readonly names: ReadonlySet<string>;
  /** A wildcard bind (0.0.0.0, ::): the server is reachable by names it cannot know, so Host is not checked. */
  readonly anyHost: boolean;
}

/** Names every local server answers to. */
export const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

export interface HostPolicyOptions {
  /** The address the server listens on (its name is allowed besides the loopback names). Default 127.0.0.1. */
  readonly host?: string;
  /** More names to answer to, e.g. the name a container network gives the server. */
  readonly allowedHosts?: readonly string[];
  /** Headers every request must carry with exactly these values, else 401 (`--require-header`: a server behind a token). */
  readonly requireHeaders?: RequiredHeaders;
}

/** The policy of a server listening on `host` (a wildcard bind checks no Host). */
export function hostPolicy(options: HostPolicyOptions = {}): HostPolicy {
  const host = options.host ?? '127.0.0.1';
  const names = new Set(LOOPBACK_NAMES);
  for (const name of [host, ...(options.allowedHosts ?? [])]) names.add(normalName(name));
  return { names, anyHost: host === '0.0.0.0' || host === '::' || host === '[::]' };
}

/** `name` lower-cased, an IPv6 address put in brackets. */
function normalName(name: string): string {
  const lower = name.trim().toLowerCase();
  return isIP(lower) === 6 ? `[${lower}]` : lower;
}

/** The host name of a Host header value (`name:port`, `[v6]:port`), lower-cased, without the port. */
export function hostNameOf(value: string): string {
  const v = value.trim().toLowerCase();
  if (v.startsWith('[')) {
    const end = v.indexOf(']');
    return end < 0 ? v : v.slice(0, end + 1);
  }
  const colon = v.lastIndexOf(':');
  return colon < 0 ? v : v.slice(0, colon);
}

/**
 * Why a request's Host is refused, or undefined when it is allowed. A request without a
 * Host header (HTTP/1.0, raw sockets) comes from no browser and passes.
 */
export function hostRefusal(policy: HostPolicy, host: string | undefined): string | undefined {
  if (policy.anyHost || host === undefined || host === '') return undefined;
  const name = hostNameOf(host);
  if (policy.names.has(name)) return undefined;
  return (
    `Host ${JSON.stringify(host)} is not allowed: this server answers requests for ${[...policy.names].join(', ')} ` +
    '(a page on another site could otherwise read it by DNS rebinding); add the name with allowedHosts to accept it'
  );
}

/**
 * Why a request's Origin is refused, or undefined when it is allowed: no Origin (not a
 * browser, or a same-origin GET) passes; an Origin whose host is an allowed name passes
 * whatever its port (a page served from localhost:5173 may talk to a mock on 127.0.0.1);
 * any other Origin, `null` included, is refused.
 */
export function originRefusal(policy: HostPolicy, origin: string | undefined): string | undefined {
  if (origin === undefined) return undefined;
  let name: string | undefined;
  try {
    const url = new URL(origin);
    name = url.protocol === 'http:' || url.protocol === 'https:' ? normalName(url.hostname) : undefined;
  } catch {
    name = undefined;
  }
  if (
    name !== undefined &&
    (policy.names.has(name) || (policy.anyHost && isIP(name.replace(/^\[|\]$/g, '')) !== 0))
  )
    return undefined;
  return (
    `Origin ${JSON.stringify(origin)} is not allowed: requests from pages of other sites are refused ` +
    `(allowed: pages served from ${[...policy.names].join(', ')})`
  );
}
