import { main } from './base.mjs';

await main({
  operatorLine:
    'Circuit breaker tripped: 3 commands failed in a row. Stopping; an administrator must review the session before it is resumed.',
});
