import { main } from './base.mjs';

// Pages of tools/list without end, 3 MiB each: the suite reads 16 MiB of them, then stops asking.
main({ heavyPages: 3 * 1024 * 1024 });
