import { isIP } from 'node:net';
import tls from 'node:tls';

// A URL target over https whose certificate Node refuses did answer: TLS refused what it
// showed. Said as "does not answer" with Node's own advice ("try running Node.js with
// --use-system-ca"), it sent users looking for a server that was up, with no word of how to
// hand wirecheck a CA. These are the words every suite uses for it, whatever reached it (a
// socket error, undici's `fetch failed` carrying one as its cause, a handshake of its own).

/** Node's codes for a certificate it refused: OpenSSL's verify results, and the host name check. */
const REFUSAL_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Refusals a CA the machine does not trust explains: giving wirecheck that CA is the cure. */
const UNKNOWN_ISSUER_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_UNTRUSTED',
]);

/**
 * Node's advice appended to some refusals (Node 23.8 and later): it names a node flag, which a
 * user of wirecheck does not pass; the words below say what to set instead.
 */
const NODE_ADVICE = /;\s*if the root CA is installed locally, try running Node\.js with --use-system-ca\.?$/;

export const CA_HINT = 'give wirecheck your CA with NODE_EXTRA_CA_CERTS=/path/ca.pem';

export interface CertificateRefusal {
  /** Node's code, e.g. DEPTH_ZERO_SELF_SIGNED_CERT. */
  readonly code: string;
  /** Node's reason, without its advice: "self-signed certificate". */
  readonly reason: string;
}

/** The refusal `e` (or its cause, as undici's `fetch failed` carries it) is, or undefined for any other error. */
export function certificateRefusalOf(e: unknown): CertificateRefusal | undefined {
  for (let at = e, depth = 0; at instanceof Error && depth < 3; at = at.cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && REFUSAL_CODES.has(code)) {
      return { code, reason: at.message.replace(NODE_ADVICE, '') };
    }
  }
  return undefined;
}

/** What the user can do about a refusal, by its kind. */
function hintFor(code: string): string {
  if (UNKNOWN_ISSUER_CODES.has(code)) return CA_HINT;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH')
    return "the certificate is not for the URL's host: give the URL with a host name the certificate names";
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
    return "the certificate is outside its dates of validity (or the machine's clock is wrong)";
  return 'the server must show a certificate Node accepts';
}

/** "the TLS certificate of <where> was refused: <reason> (<code>); <what to do>". */
export function certificateWords(where: string, refusal: CertificateRefusal): string {
  return `the TLS certificate of ${where} was refused: ${refusal.reason} (${refusal.code}); ${hintFor(refusal.code)}`;
}

/**
 * Whether an https URL's server shows a certificate Node refuses: one TLS handshake, as Node's
 * https would make it (the same trusted CAs, NODE_EXTRA_CA_CERTS included, and host check).
 * For a request that failed with no HTTP answer and no code to tell why: undefined for http,
 * a handshake that succeeds, any other error or none within `timeoutMs`.
 */
export function probeCertificate(url: URL, timeoutMs: number): Promise<CertificateRefusal | undefined> {
  if (url.protocol !== 'https:') return Promise.resolve(undefined);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = tls.connect({
      host,
      port: url.port === '' ? 443 : Number(url.port),
      // Node sends no SNI for an address (and warns when given one), as its https does.
      ...(isIP(host) === 0 ? { servername: host } : {}),
      ALPNProtocols: ['http/1.1'],
    });
    const done = (refusal: CertificateRefusal | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(refusal);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.once('secureConnect', () => done(undefined));
    socket.once('error', (e) => done(certificateRefusalOf(e)));
  });
}
