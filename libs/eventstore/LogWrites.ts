/**
 * May these NATS credentials append to the event log? `bun core doctor` asks the server
 * without writing anything: one JetStream publish on a subject of the log that names, as
 * the stream it expects, a stream no server has. The server's permission check comes first
 * and refuses it outright when the log is out of bounds; when it is not, JetStream refuses
 * it for the stream name (or nothing answers, before the log exists), and nothing is stored
 * either way.
 *
 * @example
 * const rights = await logWrites("nats://127.0.0.1:4222", { user: "core-worker", password })
 * rights.kind // "allowed" | "refused" | "unknown"
 */
import { jetstream } from "@nats-io/jetstream"
import type { NatsConnection } from "@nats-io/transport-node"
import { connectNats } from "./Connection.ts"
import type { NatsCredentials } from "./Connection.ts"
import { natsErrorLine } from "./Select.ts"

/** The log's subjects as `--store nats` opens it: stream CORE, subjects `core.>`. */
export const LOG_SUBJECTS = "core.>"
/** A subject of the log no event is ever on. */
const PROBE_SUBJECT = "core.ws.doctor-probe"
/** JetStream refuses a publish expecting this stream: no stream of CORE's has the name. */
const NO_SUCH_STREAM = "CORE_DOCTOR_PROBE_NONE"

export type LogWrites =
  | { readonly kind: "allowed" }
  | { readonly kind: "refused" }
  /** Not asked: the server did not answer, or answered something else. */
  | { readonly kind: "unknown"; readonly reason: string }

export const logWrites = async (url: string, credentials: NatsCredentials, timeoutMs = 2000): Promise<LogWrites> => {
  let nc: NatsConnection
  try {
    nc = await connectNats(url, credentials, "core-doctor")
  } catch (e) {
    return { kind: "unknown", reason: natsErrorLine(e) }
  }
  try {
    await jetstream(nc).publish(PROBE_SUBJECT, new Uint8Array(), { expect: { streamName: NO_SUCH_STREAM }, timeout: timeoutMs })
    // A stream took it after all: whoever did may append to the log.
    return { kind: "allowed" }
  } catch (e) {
    const text = natsErrorLine(e)
    if (/permissions violation/i.test(text)) return { kind: "refused" }
    // The server let the publish through; JetStream turned it down, or with no log yet nobody
    // answered (which the client reports as "jetstream is not enabled").
    if (/expected stream does not match|no responders|jetstream is not enabled/i.test(text)) return { kind: "allowed" }
    return { kind: "unknown", reason: text }
  } finally {
    await nc.close().catch(() => undefined)
  }
}
