import type { Readable, Writable } from 'node:stream';
import {
  createLineDecoder,
  type DecodedLine,
  type LineDecoder,
  type LineProblem,
} from '../protocol/jsonrpc/framing.js';
import { type Transport, TransportClosedError, TransportError } from './transport.js';

export interface StreamTransportOptions {
  /** Where messages arrive (a server's stdin, a child's stdout). */
  readonly input: Readable;
  /** Where messages go (a server's stdout, a child's stdin). */
  readonly output: Writable;
  /**
   * A line that is not JSON ends the connection at once (the spec's rule for a client
   * reading a stdio server). A server reading its stdin keeps going and answers -32700.
   */
  readonly closeOnParseError?: boolean;
  /** Named in errors: "stdio server `node srv.js`". */
  readonly label?: string;
  /**
   * A server's: stop reading input while more than this many bytes of output wait for the
   * reader (OUTPUT_ALLOWANCE_BYTES), and read on once it drained, so a client that writes
   * and never reads costs a full pipe, not the server's memory. Not for a client: one that
   * stopped reading a server's stdout because its own writes wait could deadlock.
   */
  readonly outputAllowanceBytes?: number;
  /**
   * A server's: a last message its input ends without a newline after is read as a message
   * (a client may close stdin right after its last write), not answered as a parse error.
   */
  readonly readsLastLine?: boolean;
}

const PROBLEMS: Record<LineProblem, string> = {
  syntax: 'is not JSON',
  'too-deep': 'is JSON nested too deep to read',
  'too-long': 'is too long to read',
  unterminated: 'has no newline at the end of the stream',
};

/**
 * Newline-delimited JSON over a pair of byte streams: the stdio transport of either side.
 * Closing it stops reading and ends the output; it does not end the process. Lines are
 * read within the framing's limits (16 MiB, nesting 512): a line past one is a `parse`
 * error naming the limit, and no more of it is held.
 */
export class StreamTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: TransportError) => void;
  onclose?: () => void;
  private closed = false;
  /** Input paused while the output is behind (outputAllowanceBytes). */
  private inputHeld = false;
  private readonly label: string;
  private readonly onData = (chunk: Buffer): void => this.decoder.feed(chunk);
  private readonly onEnd = (): void => {
    this.decoder.end();
    void this.close();
  };
  private readonly onStreamError = (e: Error): void => {
    this.onerror?.(new TransportError('connection', `${this.label}: ${e.message}`, true));
    void this.close();
  };
  private readonly decoder: LineDecoder;

  constructor(private readonly options: StreamTransportOptions) {
    this.label = options.label ?? 'stdio transport';
    this.decoder = createLineDecoder({
      onLine: (line) => this.onLine(line),
      readsLastLine: options.readsLastLine === true,
    });
  }

  private onLine(line: DecodedLine): void {
    if (this.closed) return;
    if (line.ok) {
      this.onmessage?.(line.value);
      return;
    }
    const fatal = this.options.closeOnParseError === true;
    this.onerror?.(
      new TransportError(
        'parse',
        `${this.label}: line ${line.lineNumber} ${PROBLEMS[line.reason]} (${line.error}): ${preview(line.line)}`,
        fatal,
        line.line,
      ),
    );
    if (fatal) void this.close();
  }

  async start(): Promise<void> {
    this.options.input.on('data', this.onData);
    this.options.input.on('end', this.onEnd);
    this.options.input.on('error', this.onStreamError);
    this.options.output.on('error', this.onStreamError);
  }

  async send(message: unknown): Promise<void> {
    if (this.closed) throw new TransportClosedError(this.label);
    const line = `${JSON.stringify(message)}\n`;
    const { input, output, outputAllowanceBytes } = this.options;
    const written = new Promise<void>((resolve, reject) => {
      output.write(line, (e) => (e ? reject(e) : resolve()));
    });
    if (
      outputAllowanceBytes !== undefined &&
      !this.inputHeld &&
      output.writableLength > outputAllowanceBytes
    ) {
      this.inputHeld = true;
      input.pause();
      const release = () => {
        output.off('drain', release);
        output.off('close', release);
        this.inputHeld = false;
        if (!this.closed) input.resume();
      };
      output.once('drain', release);
      output.once('close', release);
    }
    await written;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.options.input.off('data', this.onData);
    this.options.input.off('end', this.onEnd);
    this.options.input.off('error', this.onStreamError);
    this.onclose?.();
  }
}

/** The start of a line for an error message. */
export function preview(line: string, max = 120): string {
  const shown = JSON.stringify(line.length > max ? `${line.slice(0, max)}...` : line);
  return shown;
}
