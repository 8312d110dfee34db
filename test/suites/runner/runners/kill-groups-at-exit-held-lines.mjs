import { main } from './base.mjs';

// kill-groups-at-exit-buffered whose held answers go out one write at a time, 20 ms apart: read
// apart, they are still closer together than a prompt runner's could be.
await main({ killGroupsAtExit: true, bufferAnswers: true, heldWritesApartMs: 20 });
