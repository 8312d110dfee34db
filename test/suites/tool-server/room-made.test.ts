import { afterEach, expect, test, vi } from 'vitest';
import { ASK_AGAIN_MS, RoomMade } from '../../../src/suites/tool-server/room-made.js';

afterEach(() => vi.restoreAllMocks());
const setClock = (ms: number) => vi.spyOn(performance, 'now').mockImplementation(() => ms);

test('a refusal is asked again for ASK_AGAIN_MS after room was made, and not before any was', () => {
  const room = new RoomMade();
  setClock(5_000);
  expect(room.recently()).toBe(false);
  room.mark();
  setClock(5_000 + ASK_AGAIN_MS - 1);
  expect(room.recently()).toBe(true);
  setClock(5_000 + ASK_AGAIN_MS);
  expect(room.recently()).toBe(false);
  // Room made again opens a new window.
  room.mark();
  expect(room.recently()).toBe(true);
});
