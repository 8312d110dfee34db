import { describe, expect, test } from 'vitest';
import { type Check, CheckFailure, NotExercised, TargetGone } from '../../../src/harness/check.js';
import {
  PrerequisiteFailed,
  prerequisite,
  skipShouldOnPrerequisite,
} from '../../../src/suites/tool-server/prerequisite.js';
import { checkEnv } from '../../check-env.js';

const env = checkEnv();

function checkOf(level: 'must' | 'should', run: () => Promise<void>): Check<undefined> {
  return {
    id: `demo.${level}`,
    clause: 'c',
    description: 'd',
    level,
    basis: level === 'must' ? 'spec' : 'protocol-should',
    rule: 'A rule of the test.',
    run,
  };
}

const listFailed = () =>
  prerequisite('tools/list', async () => {
    throw new CheckFailure('tools/list got no reply: no reply within 5000 ms', 'a reply', 'nothing');
  });

describe('a failed prerequisite (the tool list) is one cause, not one failure per check', () => {
  test('every check that needs it gets the same shared cause', async () => {
    const errors = await Promise.all([listFailed().catch((e) => e), listFailed().catch((e) => e)]);
    for (const e of errors) expect(e).toBeInstanceOf(PrerequisiteFailed);
    expect(errors[0].sharedCause).toBe('tools/list: tools/list got no reply: no reply within 5000 ms');
    expect(errors[1].sharedCause).toBe(errors[0].sharedCause);
  });

  test('a must check fails with it; a should check is not exercised', async () => {
    const must = skipShouldOnPrerequisite(checkOf('must', listFailed));
    const should = skipShouldOnPrerequisite(checkOf('should', listFailed));
    await expect(must.run(undefined, env)).rejects.toBeInstanceOf(PrerequisiteFailed);
    await expect(should.run(undefined, env)).rejects.toBeInstanceOf(NotExercised);
  });

  test("a should check's own failure still warns, and a target gone is not turned into a skip", async () => {
    const own = skipShouldOnPrerequisite(
      checkOf('should', async () => {
        throw new CheckFailure('its own rule');
      }),
    );
    await expect(own.run(undefined, env)).rejects.not.toBeInstanceOf(NotExercised);
    const gone = prerequisite('tools/list', async () => {
      throw new TargetGone('gone');
    });
    await expect(gone).rejects.toBeInstanceOf(TargetGone);
    await expect(gone).rejects.not.toBeInstanceOf(PrerequisiteFailed);
  });
});
