import { main } from './base.mjs';

main({ forgetClosedOnWrite: 2 });
