// Answers every request with a reply whose result is nested --depth levels deep (default
// 1,000,000: a 2 MB line; the 60 MB lines were --depth 30000000).
import { message, opt, serve } from './lib.mjs';

const depth = Number(opt('--depth', '1000000'));
const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
serve({
  async onRequest(request, out) {
    if (request.id === undefined) return;
    await out.write(message(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":${nested}}`));
  },
});
