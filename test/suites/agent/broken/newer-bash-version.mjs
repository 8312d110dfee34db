import { main } from './base.mjs';

await main({ bashType: 'bash_20991231' });
