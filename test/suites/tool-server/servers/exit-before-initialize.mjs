import { main } from './base.mjs';

// Over stdio: a request before initialize is answered with an error, and then the process exits.
main({ exitBeforeInitialize: true });
