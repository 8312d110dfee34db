import { main } from './base.mjs';

main({ noKeepAlive: true });
