import { describe, expect, test } from 'vitest';
import {
  MAX_ENV_FRAME_BYTES,
  MAX_STDIN_FRAME_BYTES,
  parseEnvironment,
  RelayFrameError,
  RelayFrameReader,
  relayFrame,
  serverFrame,
} from '../../src/warm/frames.js';

const env = (text: string) => relayFrame('E', text);

describe('the frames of the warm relay', () => {
  test('a case split at every byte comes out whole and in order', () => {
    const bytes = Buffer.concat([
      env('A=1\0B=x=y\0C=line\nbreak'),
      relayFrame('I', 'hello '),
      relayFrame('I', Buffer.from([0, 255, 10])),
      relayFrame('Z'),
    ]);
    const reader = new RelayFrameReader();
    const frames = [...bytes].flatMap((byte) => reader.push(Uint8Array.of(byte)));
    expect(frames).toEqual([
      { type: 'env', env: { A: '1', B: 'x=y', C: 'line\nbreak' } },
      { type: 'stdin', bytes: Buffer.from('hello ') },
      { type: 'stdin', bytes: Buffer.from([0, 255, 10]) },
      { type: 'stdin-end' },
    ]);
  });

  test('an environment entry without "=" is not a variable; an empty environment is none', () => {
    expect(parseEnvironment(Buffer.from('A=1\0junk\0=nameless\0B='))).toEqual({ A: '1', B: '' });
    expect(parseEnvironment(Buffer.alloc(0))).toEqual({});
  });

  test.each([
    ['stdin before the environment', [relayFrame('I', 'x')], /environment frame \(E\) first, got "I"/],
    ['a second environment', [env('A=1'), env('B=2')], /a second environment frame/],
    ['stdin after its end', [env(''), relayFrame('Z'), relayFrame('I', 'x')], /after the end of stdin/],
    ['an unknown type', [env(''), Buffer.from('Q\0\0\0\0')], /unknown frame type "Q"; expected E, I or Z/],
    ['an HTTP request', [Buffer.from('GET / HTTP/1.1')], /unknown frame type "G"/],
    ['an end of stdin with a payload', [env(''), relayFrame('Z', 'x')], /of type "Z" of 1 bytes; at most 0/],
    ['an end of stdin with a payload', [env(''), relayFrame('Z', 'x')], /of type "Z" of 1 bytes; at most 0/],
  ])('%s is not a relay: RelayFrameError', (_, frames, message) => {
    const reader = new RelayFrameReader();
    expect(() => {
      for (const frame of frames) reader.push(frame);
    }).toThrow(message);
  });

  test('a frame longer than the relay sends is refused from its header, before its payload is held', () => {
    const stdin = Buffer.alloc(5);
    stdin.write('I', 0, 'latin1');
    stdin.writeUInt32BE(MAX_STDIN_FRAME_BYTES + 1, 1);
    const reader = new RelayFrameReader();
    reader.push(env(''));
    expect(() => reader.push(stdin)).toThrow(RelayFrameError);
    const environment = Buffer.alloc(5);
    environment.write('E', 0, 'latin1');
    environment.writeUInt32BE(MAX_ENV_FRAME_BYTES + 1, 1);
    expect(() => new RelayFrameReader().push(environment)).toThrow(/at most 4194304/);
    // The largest frames allowed pass.
    const full = new RelayFrameReader();
    full.push(env(''));
    expect(full.push(relayFrame('I', Buffer.alloc(MAX_STDIN_FRAME_BYTES)))).toHaveLength(1);
  });

  test("the server's frames: type, 32-bit big-endian length, payload; the status in decimal", () => {
    expect([...serverFrame('O', 'hi')]).toEqual([0x4f, 0, 0, 0, 2, 0x68, 0x69]);
    expect([...serverFrame('R', Uint8Array.of(7))]).toEqual([0x52, 0, 0, 0, 1, 7]);
    expect(serverFrame('X', 143).toString('latin1')).toBe('X\0\0\0\u0003143');
  });
});
