import { main } from './base.mjs';

// A prompt runner that holds its answers until stdin ends and then writes them one at a time,
// a second apart (two reads, closer than the answers of a runner that writes each when its command ends), on a
// shell whose sleep is its own: the pipe-holder's background job is never seen in /proc.
await main({ bufferAnswers: true, heldWritesApartMs: 1000, ownSleep: true });
