import { main } from './base.mjs';

await main({ noResendTools: true });
