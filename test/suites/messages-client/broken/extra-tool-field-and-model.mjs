import { main } from './base.mjs';

await main({ extraToolField: true, renameModel: true, omitDefaults: true });
