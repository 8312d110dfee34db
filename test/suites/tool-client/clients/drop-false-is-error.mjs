import { main } from './base.mjs';

main({ dropFalseIsError: true });
