export { ConcurrencyError, EventStore, commitId, InvalidAppend, StoreUnavailable, UnreadableEvent } from "./EventStore.ts"
export type { EventStoreShape, ReadError, RecordedEvent } from "./EventStore.ts"
export { EmbeddedStore } from "./EmbeddedStore.ts"
export type { EmbeddedStoreOptions } from "./EmbeddedStore.ts"
export { JetStreamStore } from "./JetStreamStore.ts"
export type { JetStreamStoreOptions } from "./JetStreamStore.ts"
export { chooseStore, natsErrorLine, probeNats } from "./Select.ts"
export type { StoreChoice } from "./Select.ts"
export { decodeCommit, MAX_COMMIT_BYTES } from "./Commit.ts"
export {
  DEFAULT_OUTAGE_LIMIT_MS,
  connectNats,
  displayNatsUrl,
  inboxPrefixOf,
  isTransientNatsError,
  throughOutages,
  watchLink
} from "./Connection.ts"
export { NatsCredentialsError } from "./Connection.ts"
export type { NatsCredentials } from "./Connection.ts"
export { LOG_SUBJECTS, logWrites } from "./LogWrites.ts"
export type { LogWrites } from "./LogWrites.ts"
