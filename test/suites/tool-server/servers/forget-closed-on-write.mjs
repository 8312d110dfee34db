import { main } from './base.mjs';

main({ forgetClosedOnWrite: true });
