import { createBashRunner, describeIsolation } from '../../runner/index.js';
import type { BashRunnerFactory } from './command.js';

/**
 * The reference bash runner (src/runner) for one agent run: it probes the strongest
 * isolation the host allows once (refusing to start without one, unless `none` was
 * chosen), then runs each command in `workdir` (created if absent).
 */
export const referenceBashRunner: BashRunnerFactory = async ({ workdir, timeoutS, isolation }) => {
  const runner = await createBashRunner({ workdir, timeoutS, isolation });
  return {
    runBash: async (toolUse, options) => (await runner.run(toolUse, options)).result,
    close: () => runner.close(),
    description: describeIsolation(runner.isolation),
  };
};
