import {
  fixtureScenario,
  loadRecordings,
  recordingScenario,
  scriptedModel,
  startMockMessagesService,
} from '../mocks/messages/index.js';
import { mergeSecrets, secretsOf } from '../recording/redact.js';
import { shownUntrusted } from '../reporters/untrusted-text.js';
import type { StartMockMessagesService } from './serve-messages.js';

/** `serve messages` options onto the mock service: --fixtures or --replay replaces the scripted model. */
export const startMockForServe: StartMockMessagesService = async (options) =>
  startMockMessagesService({
    host: options.host,
    port: options.port,
    scenario:
      options.recordings !== undefined
        ? recordingScenario(
            // A bad file of a directory is named and left out; the others are served.
            await loadRecordings(options.recordings, ({ file, problem }) =>
              process.stderr.write(
                `wirecheck serve messages: skipping ${shownUntrusted(`${file}: ${problem}`, process.env)}\n`,
              ),
            ),
            {
              speed: options.speed ?? 1,
              ...(options.match === undefined ? {} : { match: options.match }),
              // A refusal quotes the request: the accepted key and the environment's secrets stay out of it.
              secrets: mergeSecrets([options.apiKey], secretsOf(process.env)),
              // A refused request is named where a skipped file is: whoever runs the mock reads this log.
              onUnmatched: (message) =>
                process.stderr.write(`wirecheck serve messages: ${shownUntrusted(message, process.env)}\n`),
            },
          )
        : options.fixturesDir === undefined
          ? scriptedModel(options.model)
          : fixtureScenario(options.fixturesDir),
    // The control route may load fixtures from the --fixtures directory only (and the bundled ones).
    ...(options.fixturesDir === undefined ? {} : { fixtureDirs: [options.fixturesDir] }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.faults === undefined ? {} : { faults: options.faults }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
  });
