import { LLMock } from '@copilotkit/aimock';
import { TEXT_PROMPT, TOOL_PROMPT } from '../../../src/suites/messages-service/index.js';

export interface AimockService {
  readonly baseUrl: string;
  close(): Promise<void>;
}

/**
 * @copilotkit/aimock (a popular LLM-API mock) serving the messages API as a user would set
 * it up for this suite: the key required, the text prompt answered with text, the tool
 * prompt with a call of the bash tool, anything else (follow-ups, generated conversations)
 * with a short text.
 */
export async function startAimock(apiKey: string): Promise<AimockService> {
  const mock = new LLMock({ port: 0, host: '127.0.0.1', auth: { apiKeys: [apiKey] } });
  mock.onMessage(TOOL_PROMPT, {
    toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo wirecheck' }) }],
  });
  mock.onMessage(TEXT_PROMPT, { content: 'wirecheck' });
  mock.addFixture({ match: { predicate: () => true }, response: { content: 'Done.' } });
  await mock.start();
  return { baseUrl: mock.url, close: () => mock.stop() };
}
