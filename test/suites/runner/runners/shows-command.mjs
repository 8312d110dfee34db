// A runner that shows each command instead of running it (a dry run): every valid tool_use is
// answered `$ <command>`, is_error false. The checks that look for a command's output in its
// result must not find it in this copy of the command's own text.
import { createInterface } from 'node:readline';

for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
  let block;
  try {
    block = JSON.parse(line);
  } catch {
    block = undefined;
  }
  const id = typeof block?.id === 'string' ? block.id : '';
  const command = block?.input?.command;
  const result =
    typeof command === 'string'
      ? { type: 'tool_result', tool_use_id: id, content: `$ ${command}\n`, is_error: false }
      : { type: 'tool_result', tool_use_id: id, content: 'Invalid tool_use: no command', is_error: true };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
