import { main } from './base.mjs';

await main({ skipNonJson: true });
