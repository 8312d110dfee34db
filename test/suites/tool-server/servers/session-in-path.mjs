import { main } from './base.mjs';

// The session as the endpoint path's last segment (/messages/<id>), no query parameter.
main({ sessionInPath: true });
