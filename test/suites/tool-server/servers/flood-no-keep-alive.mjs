import { main } from './base.mjs';

main({ flood: 12_000, noKeepAlive: true });
