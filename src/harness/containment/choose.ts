import {
  CGROUP_REAPER_KILL,
  type CgroupSetup,
  cgroupEnclosures,
  probeCgroup,
  releaseRunCgroup,
} from './cgroup.js';
import { CONTAINMENT_METHODS, type ContainmentMethod, type EnclosureFactory } from './enclosure.js';
import { type PidNamespaceSetup, pidNamespaceEnclosures, probePidNamespace } from './pid-namespace.js';
import { type Reaper, startReaper } from './reaper.js';
import { killAllContainedTargets } from './registry.js';
import { TAG_REAPER_ARGS, TAG_REAPER_KILL, tagEnclosures } from './tag.js';

/** The variable that forces a method (for tests, and for machines where a probe misleads). */
export const METHOD_VARIABLE = 'WIRECHECK_CONTAINMENT';

/** The method in force for this process, decided once, and why the stronger ones are not used. */
export interface ContainmentInfo {
  readonly method: ContainmentMethod;
  /** Why each stronger method was not used (empty when the strongest works). */
  readonly fallbacks: readonly string[];
  /** The run's cgroup, or the unshare used, for messages; and why no reaper runs, if none does. */
  readonly detail: string;
}

export class ContainmentUnavailable extends Error {
  override readonly name = 'ContainmentUnavailable';
}

interface Chosen {
  readonly info: ContainmentInfo;
  readonly enclosures: EnclosureFactory;
  readonly release: () => void;
}

let chosen: Chosen | undefined;
let hooked = false;

/** Whatever way the process ends normally, no target outlives it, and the run's cgroup goes. */
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    killAllContainedTargets();
    chosen?.release();
  });
}

/**
 * `detail`, with why no reaper runs if none could start. A method whose enclosures outlive a
 * harness that dies without its exit path (cgroup, tag) gets a reaper (reaper.ts); a PID
 * namespace's init watches a lifeline of its own.
 */
function withReaper(detail: string, reaper: Reaper | string): { detail: string; dismiss: () => void } {
  if (typeof reaper === 'string') return { detail: `${detail} (no reaper: ${reaper})`, dismiss() {} };
  return { detail, dismiss: () => reaper.dismiss() };
}

function tryMethod(method: ContainmentMethod): Chosen | string {
  switch (method) {
    case 'cgroup': {
      const setup: CgroupSetup | string = probeCgroup();
      if (typeof setup === 'string') return setup;
      const { detail, dismiss } = withReaper(setup.runDir, startReaper(CGROUP_REAPER_KILL, [setup.runDir]));
      return {
        info: { method, fallbacks: [], detail },
        enclosures: cgroupEnclosures(setup),
        release() {
          dismiss();
          releaseRunCgroup(setup);
        },
      };
    }
    case 'pid-namespace': {
      const setup: PidNamespaceSetup | string = probePidNamespace();
      if (typeof setup === 'string') return setup;
      const how = `${setup.unshare} --pid --mount${setup.userNamespace ? ' --user --map-current-user --keep-caps' : ''}`;
      return {
        info: { method, fallbacks: [], detail: how },
        enclosures: pidNamespaceEnclosures(setup),
        release() {},
      };
    }
    case 'tag': {
      const { detail, dismiss } = withReaper(
        'environment tag scanned in /proc',
        startReaper(TAG_REAPER_KILL, TAG_REAPER_ARGS),
      );
      return { info: { method, fallbacks: [], detail }, enclosures: tagEnclosures(), release: dismiss };
    }
  }
}

/**
 * Probes once per process, strongest first: a cgroup v2 of our own, a PID namespace
 * through util-linux, the environment tag. WIRECHECK_CONTAINMENT=cgroup|pid-namespace|tag
 * forces one (an error when it does not work here). Synchronous: a spawn site calls it.
 */
export function chooseContainment(env: Readonly<Record<string, string | undefined>> = process.env): Chosen {
  if (chosen !== undefined) return chosen;
  const forced = env[METHOD_VARIABLE]?.trim();
  if (forced !== undefined && forced !== '') {
    if (!(CONTAINMENT_METHODS as readonly string[]).includes(forced)) {
      throw new ContainmentUnavailable(
        `${METHOD_VARIABLE} must be one of ${CONTAINMENT_METHODS.join(', ')}, got ${JSON.stringify(forced)}`,
      );
    }
    const result = tryMethod(forced as ContainmentMethod);
    if (typeof result === 'string') {
      throw new ContainmentUnavailable(`${METHOD_VARIABLE}=${forced}, but it does not work here: ${result}`);
    }
    chosen = result;
    hookExit();
    return result;
  }
  const fallbacks: string[] = [];
  for (const method of CONTAINMENT_METHODS) {
    const result = tryMethod(method);
    if (typeof result === 'string') {
      fallbacks.push(`${method}: ${result}`);
      continue;
    }
    chosen = { ...result, info: { ...result.info, fallbacks } };
    hookExit();
    return chosen;
  }
  throw new ContainmentUnavailable(`no containment method works here: ${fallbacks.join('; ')}`);
}

/** What `chooseContainment` decided (probing now if it has not yet). */
export function containmentInfo(): ContainmentInfo {
  return chooseContainment().info;
}

/** Forgets the decision, so that the next spawn probes again (tests switch methods with it). */
export function resetContainment(): void {
  chosen?.release();
  chosen = undefined;
}
