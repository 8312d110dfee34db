import type { CliContext } from './context.js';

/** All of stdin as text (UTF-8, a character split across chunks kept whole). */
export async function readAllStdin(stdin: CliContext['stdin']): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of stdin as AsyncIterable<string | Uint8Array>) {
    text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}
