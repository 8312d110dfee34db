import { main } from './streamable-base.mjs';

// Replays 2.5 s after the resuming GET (past RESUME_READ_MS) and keeps the stream open.
main({ eventIds: true, resumeLateMs: 2500 });
