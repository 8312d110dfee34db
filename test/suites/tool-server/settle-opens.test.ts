import { describe, expect, it } from 'vitest';
import { settleOpens } from '../../../src/suites/tool-server/checks/open-within-capacity.js';
import { SessionRefused } from '../../../src/suites/tool-server/context.js';

describe('settleOpens', () => {
  it('keeps the order asked for and splits capacity refusals from other failures', async () => {
    const full = new SessionRefused('503: no more sessions');
    const broken = new Error('connection reset');
    const settled = await settleOpens([
      Promise.resolve('a'),
      Promise.reject(full),
      Promise.resolve('c'),
      Promise.reject(broken),
      Promise.reject(new SessionRefused('429')),
    ]);
    expect(settled.opened).toEqual(['a', undefined, 'c', undefined, undefined]);
    expect(settled.refusal).toBe(full);
    expect(settled.failed).toEqual([broken]);
  });

  it('reports neither refusal nor failure when every session opened', async () => {
    const settled = await settleOpens([Promise.resolve(1), Promise.resolve(2)]);
    expect(settled).toEqual({ opened: [1, 2], refusal: undefined, failed: [] });
  });
});
