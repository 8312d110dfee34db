import { type Transport, TransportClosedError } from './transport.js';

/**
 * Two linked transports for tests: what one sends the other receives, asynchronously (a
 * microtask later, as over a real channel) and through a JSON round trip, so a message
 * cannot share objects with its sender.
 */
export function createInMemoryPair(): [Transport, Transport] {
  const a = new InMemoryTransport('in-memory transport A');
  const b = new InMemoryTransport('in-memory transport B');
  a.peer = b;
  b.peer = a;
  return [a, b];
}

class InMemoryTransport implements Transport {
  peer: InMemoryTransport | undefined;
  onmessage?: (message: unknown) => void;
  onclose?: () => void;
  private closed = false;
  private started = false;
  private queue: unknown[] = [];

  constructor(private readonly label: string) {}

  async start(): Promise<void> {
    this.started = true;
    const waiting = this.queue;
    this.queue = [];
    for (const m of waiting) this.onmessage?.(m);
  }

  async send(message: unknown): Promise<void> {
    if (this.closed) throw new TransportClosedError(this.label);
    const copy: unknown = JSON.parse(JSON.stringify(message));
    const peer = this.peer;
    queueMicrotask(() => peer?.receive(copy));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
    await this.peer?.close();
  }

  private receive(message: unknown): void {
    if (this.closed) return;
    if (!this.started) this.queue.push(message);
    else this.onmessage?.(message);
  }
}
