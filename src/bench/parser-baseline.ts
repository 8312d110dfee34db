import { createParser } from 'eventsource-parser';
import type { StreamEvent } from '../protocol/messages/index.js';
import { BENCH_HEADERS, BENCH_REQUEST } from './request.js';

type Block = Record<string, unknown> & { type: string };

/**
 * The least a consumer must do with the events: keep the message of message_start, the
 * blocks, join their deltas, parse tool input once at the block's end, take the stop
 * reason. No validation and no error handling: the floor a real client is compared with.
 */
export class MinimalAccumulator {
  private message: Record<string, unknown> | undefined;
  private readonly content: Block[] = [];
  private text = '';
  private json = '';

  push(event: StreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.message = { ...event.message };
        break;
      case 'content_block_start':
        this.content[event.index] = { ...event.content_block };
        this.text = '';
        this.json = '';
        break;
      case 'content_block_delta':
        if (event.delta.type === 'text_delta') this.text += event.delta.text;
        else this.json += event.delta.partial_json;
        break;
      case 'content_block_stop': {
        const block = this.content[event.index]!;
        if (block.type === 'text') block.text = this.text;
        else block.input = this.json === '' ? {} : JSON.parse(this.json);
        break;
      }
      case 'message_delta':
        Object.assign(this.message!, event.delta, { usage: event.usage });
        break;
      default:
        break;
    }
  }

  result(): { content: Block[] } {
    return { ...this.message, content: this.content };
  }
}

/**
 * The baseline consumer of a stream at `${baseUrl}/v1/messages`: fetch -> TextDecoder ->
 * eventsource-parser -> JSON.parse -> MinimalAccumulator.
 */
export function parserBaseline(baseUrl: string): () => Promise<{ content: readonly unknown[] }> {
  const url = `${baseUrl}/v1/messages`;
  const body = JSON.stringify(BENCH_REQUEST);
  return async () => {
    const res = await fetch(url, { method: 'POST', headers: BENCH_HEADERS, body });
    if (res.status !== 200 || res.body === null) {
      throw new Error(`${url} answered HTTP ${res.status}, expected 200 with a body`);
    }
    const accumulator = new MinimalAccumulator();
    const parser = createParser({
      onEvent: (event) => accumulator.push(JSON.parse(event.data) as StreamEvent),
    });
    const decoder = new TextDecoder();
    for await (const chunk of res.body) parser.feed(decoder.decode(chunk, { stream: true }));
    parser.feed(decoder.decode());
    return accumulator.result();
  };
}
