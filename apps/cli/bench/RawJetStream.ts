/**
 * The baselines: what plain `@nats-io/jetstream` does with the same bytes, with nothing of
 * ours in the way — no catalog, no Effect, no hashing. Each helper is as fast as the
 * client allows, so a ratio against it is never flattered by a weak baseline.
 */
import { DeliverPolicy } from "@nats-io/jetstream"
import type { JetStreamClient } from "@nats-io/jetstream"

/** A serial chain of publishes to one subject; the chains of one round run concurrently. */
export interface RawChain {
  readonly subject: string
  readonly bodies: ReadonlyArray<Uint8Array>
}

/** Runs every chain at once (one publish in flight per chain); returns how many were acknowledged. */
export const publishChains = async (js: JetStreamClient, chains: ReadonlyArray<RawChain>): Promise<number> => {
  const counts = await Promise.all(
    chains.map(async (c) => {
      for (const body of c.bodies) await js.publish(c.subject, body)
      return c.bodies.length
    })
  )
  return counts.reduce((a, b) => a + b, 0)
}

/**
 * Awaited publishes to one subject, each conditional on the subject's last sequence like
 * our append's; returns the subject's sequence after the last one.
 */
export const publishSerial = async (js: JetStreamClient, chain: RawChain, lastSequence: number): Promise<number> => {
  let seq = lastSequence
  for (const body of chain.bodies) seq = (await js.publish(chain.subject, body, { expect: { lastSubjectSequence: seq } })).seq
  return seq
}

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
