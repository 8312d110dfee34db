import { main } from './base.mjs';

main({ badDiagnostic: true });
