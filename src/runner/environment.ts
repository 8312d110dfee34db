/**
 * Runner contract 2: the command's whole environment. Nothing of the runner's own
 * environment (API keys, tokens) reaches a command; bash adds PWD, SHLVL and `_` itself.
 */
export const MINIMAL_PATH = '/usr/local/bin:/usr/bin:/bin';
/** The fixed USER every command sees, whatever uid it runs as. */
export const RUNNER_USER = 'runner';

export function commandEnvironment(workdir: string): Record<string, string> {
  return { PATH: MINIMAL_PATH, HOME: workdir, USER: RUNNER_USER };
}

/** For the runner's own helper processes (bwrap, unshare, mount), never for the command. */
export const HELPER_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
