/**
 * Workers saying they are alive: each publishes its presence — host, episodes at once, the
 * jobs it holds, how many it has done — every few seconds to its own subject of a stream
 * that keeps one message per worker and forgets it after `PRESENCE_TTL_MS`. `bun core
 * workers` reads the last message of each subject, so a worker that stopped or was cut off
 * drops out by itself.
 *
 * @example
 * const stop = announce(queue, () => presenceNow())
 * const live = await livePresences(queue)
 */
import { Schema } from "effect"
import { decodePresence, PROTOCOL_VERSION } from "./Protocol.ts"
import type { Presence } from "./Protocol.ts"
import { PRESENCE_EVERY_MS, PRESENCE_STREAM, presenceSubject } from "./Queue.ts"
import type { Queue } from "./Queue.ts"

/** The workers' presence on the NATS server could not be read. */
export class PresenceUnreadable extends Schema.TaggedError<PresenceUnreadable>()("PresenceUnreadable", {
  reason: Schema.String
}) {
  override get message() {
    return `cannot read the workers' presence: ${this.reason}`
  }
}

/** Publishes `now()` at once and every few seconds; returns the function that stops it. */
export const announce = (queue: Queue, now: () => Presence): (() => void) => {
  const say = () => void queue.js.publish(presenceSubject(now().name), JSON.stringify(now())).catch(() => undefined)
  say()
  const beat = setInterval(say, PRESENCE_EVERY_MS)
  return () => clearInterval(beat)
}

/** What a worker of this build says of itself. */
export const presenceOf = (p: Omit<Presence, "protocol" | "at">): Presence => ({
  ...p,
  protocol: PROTOCOL_VERSION,
  at: new Date().toISOString()
})

/** The workers alive now, by name; a message that does not decode is skipped. */
export const livePresences = async (queue: Queue): Promise<ReadonlyArray<Presence>> => {
  const info = await queue.jsm.streams.info(PRESENCE_STREAM, { subjects_filter: ">" })
  const out: Array<Presence> = []
  for (const subject of Object.keys(info.state.subjects ?? {}).sort()) {
    const m = await queue.jsm.streams.getMessage(PRESENCE_STREAM, { last_by_subj: subject }).catch(() => null)
    if (m === null) continue
    const p = decodePresence(m.json())
    if (p.ok) out.push(p.value)
  }
  return out
}
