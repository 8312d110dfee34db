import Anthropic from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { MessagesClient } from '../clients/messages/index.js';
import { BENCH_API_KEY, BENCH_REQUEST } from './request.js';

/** Reads one whole stream and returns the final message (what is compared is its content). */
export type Consume = () => Promise<{ content: readonly unknown[] }>;

/** The reference client: `MessagesClient.stream(request).finalMessage()`. */
export function referenceClient(baseUrl: string): Consume {
  const client = new MessagesClient({ apiKey: BENCH_API_KEY, baseUrl, maxRetries: 0, env: {} });
  return () => client.stream(BENCH_REQUEST).finalMessage();
}

/**
 * The official SDK: `messages.stream(body).finalMessage()`. The SDK reads ANTHROPIC_*
 * variables; the bench clears them before it starts (see clearSdkEnvironment).
 */
export function officialSdk(baseUrl: string): Consume {
  const sdk = new Anthropic({ apiKey: BENCH_API_KEY, baseURL: baseUrl, maxRetries: 0 });
  const { stream: _, ...body } = BENCH_REQUEST;
  return () => sdk.messages.stream(body).finalMessage();
}

/** The official SDK's last 0.x release (the `anthropic-sdk-0` npm alias), the same way. */
export function officialSdk0(baseUrl: string): Consume {
  const sdk = new Anthropic0({ apiKey: BENCH_API_KEY, baseURL: baseUrl, maxRetries: 0 });
  const { stream: _, ...body } = BENCH_REQUEST;
  return () => sdk.messages.stream(body).finalMessage();
}

/** Remove ANTHROPIC_* variables from this process, so the SDK talks to the bench server only. */
export function clearSdkEnvironment(env: NodeJS.ProcessEnv = process.env): void {
  for (const name of Object.keys(env)) if (name.startsWith('ANTHROPIC_')) delete env[name];
}
