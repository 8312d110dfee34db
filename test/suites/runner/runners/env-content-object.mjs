import { main } from './base.mjs';

// Its environment passed on, and the answer to `env` with the output in an object: {"stdout": ...}.
await main({ inheritEnv: true, malformedEnvAnswer: 'content-object' });
