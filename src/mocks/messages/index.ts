export { build, createMockMessagesApp } from './build.js';
export { CONTROL_PREFIX, ScenarioJson, scenarioOfJson } from './control-routes.js';
export { FaultPlan, Injection, MALFORMATIONS, type Malformation, mergeFaults } from './faults.js';
export {
  BUNDLED_FIXTURES_DIR,
  Fixture,
  FixtureError,
  FixtureList,
  FixtureMatch,
  fixtureScenario,
  loadFixtures,
} from './fixture-scenario.js';
export {
  type AuthScheme,
  atMessagesEndpoint,
  atOtherApiOperation,
  Journal,
  type JournalEntry,
  JournalTimeoutError,
  journalEntry,
  type KeyHeader,
  MESSAGES_PATH,
  type Outcome,
  pathOf,
} from './journal.js';
export type { MockMessagesOptions, MockMessagesService } from './options.js';
export { DEFAULT_BODY_LIMIT, DEFAULT_STREAM_CACHE_BYTES } from './options.js';
export {
  type KeepAlive,
  type PlanOptions,
  planMessageSteps,
  planSteps,
  planStream,
  type StreamStep,
} from './plan-stream.js';
export {
  loadRecordings,
  NO_MATCH,
  type RecordingScenarioOptions,
  ReplayMatch,
  recordingScenario,
  type SkippedFile,
} from './recording-scenario.js';
export {
  planReplay,
  REPLAY_FAULTS,
  type ReplayOptions,
  type ReplayPlan,
  unsupportedReplayFaults,
} from './replay-plan.js';
export {
  completeMessage,
  MessageDraft,
  messageIdFor,
  type Reply,
  ReplyJson,
  replyOfJson,
  type Scenario,
  type ScenarioContext,
  toolUseIdFor,
} from './reply.js';
export { scriptScenario, scriptScenarioOfJson } from './script-scenario.js';
export { commandsOf, scriptedModel } from './scripted-model.js';
export {
  type FrameBatch,
  framesOfMessage,
  framesOfRaw,
  messageBatches,
  type RawFrame,
  type SourceFrame,
} from './source-frames.js';
export { startMockMessagesService } from './start.js';
export { EncodedStreamCache } from './stream-cache.js';
export { conversationError, type RequestCheck, validateRequest } from './validate-request.js';
