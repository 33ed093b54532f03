/** What can go wrong between an event and its bytes. Readers get these as values, never as a crash. */
import { Schema } from "effect"

export class UnknownEventType extends Schema.TaggedError<UnknownEventType>()("UnknownEventType", {
  type: Schema.String,
  version: Schema.Number
}) {
  override get message() {
    return `unknown event type '${this.type}' (version ${this.version}): this build of core does not know it; upgrade core`
  }
}

export class UnknownEventVersion extends Schema.TaggedError<UnknownEventVersion>()("UnknownEventVersion", {
  type: Schema.String,
  version: Schema.Number,
  known: Schema.Array(Schema.Number)
}) {
  override get message() {
    return `unknown version ${this.version} of event '${this.type}' (this build knows ${this.known.join(", ")}): upgrade core or add an upcaster`
  }
}

export class InvalidEvent extends Schema.TaggedError<InvalidEvent>()("InvalidEvent", {
  type: Schema.String,
  version: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `invalid event '${this.type}' v${this.version}: ${this.reason}`
  }
}

export class EventTooLarge extends Schema.TaggedError<EventTooLarge>()("EventTooLarge", {
  type: Schema.String,
  id: Schema.String,
  bytes: Schema.Number,
  limit: Schema.Number
}) {
  override get message() {
    return `event '${this.type}' ${this.id.slice(0, 12)} is ${this.bytes} bytes, over the ${this.limit}-byte limit: store large payloads as blobs and put their hashes in the event`
  }
}

export type EventDecodeError = UnknownEventType | UnknownEventVersion | InvalidEvent
export type EventEncodeError = InvalidEvent | EventTooLarge
