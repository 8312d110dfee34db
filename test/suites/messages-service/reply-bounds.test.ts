import { describe, expect, test } from 'vitest';
import { zodIssues } from '../../../src/protocol/zod-issues.js';
import { bufferedMessage } from '../../../src/suites/messages-service/reply-rules.js';
import { bestMs, oneReadMs } from '../../side-by-side.js';

// A 200 reply whose content is a long array of bad blocks: zod made one union issue per
// element and the report joined them all (1M blocks, a 1.9 MiB body: 1.37 GB of heap).

function replyOf(body: string) {
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    text: body,
    json: JSON.parse(body),
    jsonError: undefined,
  };
}

function messageWith(content: string): string {
  return `{"id":"m","type":"message","role":"assistant","model":"x","content":[${content}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`;
}

describe('messages-service: a buffered reply with a million bad content blocks', () => {
  test('is judged quickly, naming the first bad block, in a short message', () => {
    const body = messageWith(Array(1_000_000).fill('1').join(','));
    const reply = replyOf(body);
    const { message, violations } = bufferedMessage(reply);
    // Judged whole, it took 1.37 GB and seconds, a great many times one read of the blocks,
    // which is timed beside it: a machine under load slows both alike, so their ratio holds
    // where a bound in ms does not.
    const read = oneReadMs(reply.json.content);
    const judged = bestMs(() => bufferedMessage(reply));
    expect(judged, `judged in ${judged.toFixed(2)} ms; read in ${read.toFixed(2)} ms`).toBeLessThan(
      10 * read,
    );
    expect(message).toBeUndefined();
    expect(violations).toHaveLength(1);
    expect(violations[0]!.actual).toMatch(/^content\.0: /);
    expect(violations[0]!.actual).toContain(
      'content.0 is the first bad block of 1000000; the blocks after it were not judged',
    );
    expect(violations[0]!.actual.length).toBeLessThan(1000);
  });

  test('good blocks before the first bad one are passed over; its index is named', () => {
    const good = '{"type":"text","text":"a"},{"type":"thinking","thinking":"t"}';
    const body = messageWith(`${good},${good},{"type":"tool_use","id":"t"},1,1`);
    const actual = bufferedMessage(replyOf(body)).violations[0]!.actual;
    expect(actual).toMatch(/^content\.4/);
    expect(actual).toContain('content.4 is the first bad block of 7');
  });

  test('other faults of the message are still named beside the bad block', () => {
    const body = messageWith('1,1,1').replace('"role":"assistant"', '"role":"user"');
    const actual = bufferedMessage(replyOf(body)).violations[0]!.actual;
    expect(actual).toContain('role: ');
    expect(actual).toContain('content.0: ');
  });
});

describe('messages-service: zod issues in a violation', () => {
  test('the first five are quoted and the rest counted', () => {
    const issues = Array.from({ length: 12 }, (_, i) => ({ path: ['content', i], message: 'bad' }));
    const text = zodIssues({ issues });
    expect(text).toBe(
      'content.0: bad; content.1: bad; content.2: bad; content.3: bad; content.4: bad (and 7 more issues)',
    );
  });
});
