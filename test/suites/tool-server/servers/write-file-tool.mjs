import { main } from './base.mjs';

// Lists a write_file tool (no readOnlyHint) beside a read-only echo: only echo may be called by default.
main({ writeFileTool: true });
