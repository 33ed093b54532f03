/**
 * What the tests of a process that follows the log share (`dataset follow`, `train --follow`):
 * unique names on the shared CORE stream, their durable consumers deleted afterwards, a child's
 * stderr read as it comes, and waiting for a condition.
 */
import { afterAll } from "bun:test"
import { connect } from "@nats-io/transport-node"
import { jetstreamManager } from "@nats-io/jetstream"
import { rmSync } from "node:fs"

export const NATS = "nats://127.0.0.1:4222"

export const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`

/** A list to push consumer names to: they are deleted from the server, and `tmp` removed, after the file's tests. */
export const cleanedUp = (tmp: string): Array<string> => {
  const consumers: Array<string> = []
  afterAll(async () => {
    rmSync(tmp, { recursive: true, force: true })
    const nc = await connect({ servers: NATS })
    const jsm = await jetstreamManager(nc)
    for (const c of consumers) await jsm.consumers.delete("CORE", c).catch(() => false)
    await nc.close()
  })
  return consumers
}

/** The text of a stream so far, read as it arrives. */
export const tee = (s: ReadableStream<Uint8Array>) => {
  const acc = { text: "" }
  void (async () => {
    const dec = new TextDecoder()
    for await (const c of s) acc.text += dec.decode(c, { stream: true })
  })()
  return acc
}

/** Waits until `cond` holds; after `ms`, fails saying what it waited for (a function: said as it is then). */
export const waitFor = async (what: string | (() => string), cond: () => boolean | Promise<boolean>, ms = 45_000) => {
  const deadline = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`)
    await Bun.sleep(20)
  }
}
