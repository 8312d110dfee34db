import { describe, expect, test } from 'vitest';
import { PEER_LIMITS } from '../../../src/suites/tool-server/peer.js';
import { MAX_KEPT_FRAMES } from '../../../src/suites/tool-server/sse-channel.js';
import { MAX_KEPT_EVENTS } from '../../../src/suites/tool-server/streamable-channel.js';
import {
  httpTarget,
  notPassed,
  quickSuite,
  runAgainst,
  serverScript,
  statusById,
  stdioTarget,
  testServer,
} from './helpers.js';

// A session past the items it keeps as evidence (PEER_LIMITS.maxKeptItems): the checks that
// judge what arrives after a point judge every line read, not the items kept, and over SSE the
// keep-alive check sees keep-alives past the frames a stream keeps. Each server here logs 12,000
// notifications right after its initialize reply (over SSE, on every stream), within the protocol;
// the Streamable HTTP ones send 1,500 notifications with event ids before every reply.
const FLOOD = 12_000;

describe('checks of a session past its kept items', () => {
  test('the servers log more lines than a session keeps, and more frames and events than a stream keeps', () => {
    expect(PEER_LIMITS.maxKeptItems).toBeLessThan(FLOOD);
    expect(MAX_KEPT_FRAMES).toBeLessThan(FLOOD);
    expect(MAX_KEPT_EVENTS).toBeLessThan(1500);
  });

  test('a conforming server that logs 12,000 notifications after initialize passes every quick check', async () => {
    const result = await runAgainst(await testServer('flood', 'stdio'));
    expect(notPassed(result)).toEqual([]);
    const status = statusById(result);
    for (const id of [
      'tool-server.stdio.stdout-purity',
      'tool-server.jsonrpc.notification-no-reply',
      'tool-server.malformed.parse-error',
      'tool-server.malformed.invalid-request',
    ])
      expect(status[id], id).toBe('pass');
  }, 120_000);

  test('over SSE, a conforming server that logs 12,000 notifications on every stream passes every quick check, keep-alive included', async () => {
    const result = await runAgainst(await testServer('flood', 'sse'));
    expect(notPassed(result)).toEqual([]);
    // Its keep-alives come after the frames a stream keeps (MAX_KEPT_FRAMES).
    expect(statusById(result)['tool-server.sse.keep-alive']).toBe('pass');
  }, 180_000);

  test('over SSE, the same server without keep-alives fails the keep-alive check: its log lines are no keep-alive', async () => {
    const id = 'tool-server.sse.keep-alive';
    const result = await runAgainst(await testServer('flood-no-keep-alive', 'sse'), { only: [id] });
    expect(result.checks.find((c) => c.id === id)?.status).toBe('fail');
  }, 120_000);

  test('over Streamable HTTP, a resumable server that sends 1,500 notifications with event ids before every reply passes every http check', async () => {
    const result = await runAgainst(
      await httpTarget('streamable-chatty-resumable'),
      { only: ['tool-server.http.'] },
      quickSuite,
    );
    expect(notPassed(result)).toEqual([]);
    // Ids past the events a stream keeps are compared, and the replay is read past 200 events.
    const status = statusById(result);
    expect(status['tool-server.http.event-ids-unique']).toBe('pass');
    expect(status['tool-server.http.resume-replays-after']).toBe('pass');
  }, 120_000);

  test('over Streamable HTTP, an event id repeated across streams past the events kept fails event-ids-unique', async () => {
    const id = 'tool-server.http.event-ids-unique';
    const result = await runAgainst(
      await httpTarget('streamable-chatty-repeat-id'),
      { only: [id] },
      quickSuite,
    );
    const check = result.checks.find((c) => c.id === id);
    expect(check?.status).toBe('fail');
    expect(check?.message).toContain('"last-note"');
  }, 120_000);

  test('a banner after the log lines fails stdout-purity, quoting it', async () => {
    const id = 'tool-server.stdio.stdout-purity';
    const result = await runAgainst(await testServer('flood-late-banner', 'stdio'), { only: [id] });
    const check = result.checks.find((c) => c.id === id);
    expect(check?.status).toBe('fail');
    expect(check?.message).toBe('1 stdout line(s) are not JSON-RPC messages, the first: "tool server ready"');
  }, 120_000);

  test('replies to notifications after the log lines fail notification-no-reply', async () => {
    const id = 'tool-server.jsonrpc.notification-no-reply';
    const result = await runAgainst(await testServer('flood-reply-to-notifications', 'stdio'), {
      only: [id],
    });
    const check = result.checks.find((c) => c.id === id);
    expect(check?.status).toBe('fail');
    // The reply to notifications/initialized may be among them: it comes after the log lines.
    expect(check?.message).toMatch(
      /^[23] reply\(ies\) to notifications: .*Method not found: notifications\/wirecheck-unknown/,
    );
  }, 120_000);

  test('a batch answered after the log lines passes batch-answered under 2025-03-26', async () => {
    const id = 'tool-server.jsonrpc.batch-answered';
    const target = {
      ...stdioTarget(`${serverScript('revisions')} --flood ${FLOOD}`, 'all'),
      protocol: '2025-03-26' as const,
    };
    const result = await runAgainst(target, { only: [id] });
    expect(result.checks.find((c) => c.id === id)?.status).toBe('pass');
  }, 120_000);
});
