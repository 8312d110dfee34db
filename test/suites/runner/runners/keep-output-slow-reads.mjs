import { main } from './base.mjs';

// Keeps what it reads, but reads 32 MiB/s: in the 2 s of the flood it takes in too little
// for its memory to tell holding from dropping (as on a machine too busy to flood it).
await main({ keepOutput: true, readBytesPerS: 32 * 1024 * 1024 });
