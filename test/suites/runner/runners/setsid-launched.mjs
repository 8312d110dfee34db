import { launchInOwnSession } from './launch-in-own-session.mjs';

// Not a flaw: the conforming runner, started by a launcher in a session of its own.
launchInOwnSession(new URL('./conforming.mjs', import.meta.url));
