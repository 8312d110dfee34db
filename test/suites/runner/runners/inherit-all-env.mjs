import { main } from './base.mjs';

// The whole environment, the runner's own PATH and USER included (a runner that sets nothing).
await main({ inheritEnv: true, inheritPath: true, inheritUser: true });
