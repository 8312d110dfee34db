import { main } from './base.mjs';

// Sends notifications/initialized before the initialize result, and no other request early.
await main({ initializedEarly: true });
