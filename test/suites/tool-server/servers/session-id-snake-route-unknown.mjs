import { main } from './base.mjs';

// session_id as the Python SDK names it, and a POST without it routed to the newest session.
main({ sessionParam: 'session_id', routeUnknownToFirst: true });
