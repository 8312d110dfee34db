import { isSecretName } from '../../recording/redact.js';

/**
 * Whether a parsed JSON body has a member named like a credential holding a string (what
 * redactBody replaces by name, `mcp_servers[].authorization_token`). Most bodies have none
 * and are journaled as sent, without a copy of the whole value. Iterative: a body may nest
 * as deep as the mock admits.
 */
export function holdsSecretField(value: unknown): boolean {
  const work: unknown[] = [value];
  while (work.length > 0) {
    const v = work.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const item of v) if (item !== null && typeof item === 'object') work.push(item);
      continue;
    }
    const members = v as Record<string, unknown>;
    for (const name in members) {
      const member = members[name];
      if (typeof member === 'string') {
        if (isSecretName(name)) return true;
      } else if (member !== null && typeof member === 'object') work.push(member);
    }
  }
  return false;
}
