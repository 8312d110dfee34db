import { main } from './base.mjs';

// The Python SDK's and FastMCP's endpoint: the session in the query parameter session_id.
main({ sessionParam: 'session_id' });
