import { launchInOwnSession } from './launch-in-own-session.mjs';

// A runner in a session of its own (started by a launcher) whose commands run in its group.
launchInOwnSession(new URL('./ignore-process-group.mjs', import.meta.url));
