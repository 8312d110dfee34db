import { fixtureScenario, scriptedModel, startMockMessagesService } from '../mocks/messages/index.js';
import type { StartMockMessagesService } from './serve-messages.js';

/** `serve messages` options onto the mock service: --fixtures replaces the scripted model. */
export const startMockForServe: StartMockMessagesService = (options) =>
  startMockMessagesService({
    host: options.host,
    port: options.port,
    scenario:
      options.fixturesDir === undefined ? scriptedModel(options.model) : fixtureScenario(options.fixturesDir),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.faults === undefined ? {} : { faults: options.faults }),
  });
