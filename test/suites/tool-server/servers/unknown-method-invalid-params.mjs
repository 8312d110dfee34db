import { main } from './base.mjs';

// An unknown method answered with -32602 (Invalid params), as the Python SDK answers it.
main({ unknownMethodCode: -32602 });
