export {
  type ContainmentInfo,
  ContainmentUnavailable,
  chooseContainment,
  containmentInfo,
  METHOD_VARIABLE,
  resetContainment,
} from './choose.js';
export { CONTAINMENT_METHODS, type ContainmentMethod, TAG_VARIABLE } from './enclosure.js';
export {
  type EndedProcess,
  judgeLeftovers,
  LeftoverLedger,
  type NoneLeftCheckSpec,
  noneLeftCheck,
} from './leftovers.js';
export type { Survivor } from './procfs.js';
export { killAllContainedTargets, liveContainedTargets } from './registry.js';
export {
  type ContainedSpawnOptions,
  type ContainedTarget,
  describeSurvivors,
  spawnContained,
  startContained,
} from './spawn.js';
export { withSpawner } from './spawner-lease.js';
