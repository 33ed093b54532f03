/**
 * The baselines: what plain `@nats-io/jetstream` does with the same bytes, with nothing of
 * ours in the way — no catalog, no Effect, no hashing. Each helper is as fast as the
 * client allows, so a ratio against it is never flattered by a weak baseline.
 */
import { DeliverPolicy } from "@nats-io/jetstream"
import type { JetStreamClient, PubAck } from "@nats-io/jetstream"

/**
 * A serial chain of publishes to one subject; the chains of one round run concurrently.
 * `ids` are the commits' ids, one per body: the `Nats-Msg-Id` our append sends with it.
 */
export interface RawChain {
  readonly subject: string
  readonly bodies: ReadonlyArray<Uint8Array>
  readonly ids: ReadonlyArray<string>
}

/** Runs every chain at once (one publish in flight per chain); returns how many were acknowledged. */
const allChains = async (chains: ReadonlyArray<RawChain>, run: (c: RawChain) => Promise<void>): Promise<number> => {
  await Promise.all(chains.map(run))
  return chains.reduce((n, c) => n + c.bodies.length, 0)
}

/** Plain publishes without headers: how fast JetStream stores these bytes when nothing is asked of it. */
export const publishChains = (js: JetStreamClient, chains: ReadonlyArray<RawChain>): Promise<number> =>
  allChains(chains, async (c) => {
    for (const body of c.bodies) await js.publish(c.subject, body)
  })

/**
 * A duplicate ack carries the first message's sequence, so a reused id would quietly turn
 * a publish into a lookup and flatter the baseline; refusing it keeps the work the same as
 * our append's.
 */
const fresh = (subject: string, ack: PubAck): number => {
  if (ack.duplicate) throw new Error(`JetStream took a message to ${subject} for a duplicate: message ids must be unique`)
  return ack.seq
}

/**
 * One conditional publish as our append sends it: `Nats-Msg-Id` for dedupe and the
 * subject's last sequence as the expectation; returns the subject's new sequence.
 */
const publishConditional = async (js: JetStreamClient, subject: string, body: Uint8Array, id: string, last: number) =>
  fresh(subject, await js.publish(subject, body, { msgID: id, expect: { lastSubjectSequence: last } }))

/**
 * Every chain at once, each publish carrying the same two headers as our append; each chain
 * tracks its subject's last sequence in `sequences` (carried from one call to the next), so
 * every expectation holds and the server checks it instead of refusing. One chain is the
 * serial baseline: each publish awaited before the next.
 */
export const publishChainsConditional = (
  js: JetStreamClient,
  sequences: Map<string, number>,
  chains: ReadonlyArray<RawChain>
): Promise<number> =>
  allChains(chains, async (c) => {
    let seq = sequences.get(c.subject) ?? 0
    for (let i = 0; i < c.bodies.length; i++) seq = await publishConditional(js, c.subject, c.bodies[i]!, c.ids[i]!, seq)
    sequences.set(c.subject, seq)
  })

/**
 * Every message on `subject` through an ordered consumer, as our readAll reads them, but
 * without decoding; returns the count and the payload bytes (touched so none of the work
 * is skipped). Like readAll it stops at the last message on the subject, found by a direct
 * get first: nats-server 2.9's pending count is unreliable for wildcard filters.
 */
export const readOrdered = async (js: JetStreamClient, stream: string, subject: string): Promise<{ count: number; bytes: number }> => {
  const last = (await (await js.jetstreamManager(false)).direct.getMessage(stream, { last_by_subj: subject }))?.seq ?? 0
  if (last === 0) return { count: 0, bytes: 0 }
  const consumer = await js.consumers.get(stream, { filter_subjects: subject, deliver_policy: DeliverPolicy.All })
  const messages = await consumer.consume({ max_messages: 1024 })
  let count = 0
  let bytes = 0
  try {
    for await (const m of messages) {
      count++
      bytes += m.data.length
      if (m.seq >= last) break
    }
  } finally {
    void messages.close().catch(() => undefined)
  }
  return { count, bytes }
}
