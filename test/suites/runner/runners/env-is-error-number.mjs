import { main } from './base.mjs';

// Its environment passed on, and the answer to `env` with is_error 0 (a number, not false).
await main({ inheritEnv: true, malformedEnvAnswer: 'is-error-number' });
