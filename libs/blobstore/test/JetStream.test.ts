import { Objm } from "@nats-io/obj"
import { connect } from "@nats-io/transport-node"
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { BlobStore, JetStreamBlobStore } from "../mod.ts"
import { conformance } from "./conformance.ts"

const url = process.env.NATS_URL ?? "nats://127.0.0.1:4222"
const bucket = `core-blobs-test-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`

afterAll(async () => {
  const nc = await connect({ servers: url })
  try {
    await (await new Objm(nc).open(bucket)).destroy()
  } finally {
    await nc.close()
  }
})

conformance("jetstream", () => JetStreamBlobStore.layer({ url, bucket }))

test("a second put of a stored blob writes nothing to the bucket", async () => {
  const bytes = crypto.getRandomValues(new Uint8Array(200_000))
  const store = JetStreamBlobStore.layer({ url, bucket })
  const messages = async () => {
    const nc = await connect({ servers: url })
    try {
      return (await (await new Objm(nc).open(bucket)).status()).streamInfo.state.messages
    } finally {
      await nc.close()
    }
  }
  await Effect.runPromise(
    Effect.provide(
      BlobStore.use((blobs) => blobs.put(bytes)),
      store
    )
  )
  const before = await messages()
  await Effect.runPromise(
    Effect.provide(
      BlobStore.use((blobs) => blobs.put(bytes)),
      store
    )
  )
  expect(await messages()).toBe(before)
})

test("an unreachable server fails with a one-line BlobStoreError naming the URL", async () => {
  const unreachable = "nats://127.0.0.1:1"
  const error = await Effect.runPromise(
    Effect.flip(
      Effect.provide(
        BlobStore.use(() => Effect.void),
        JetStreamBlobStore.layer({ url: unreachable, bucket })
      )
    )
  )
  expect(error._tag).toBe("BlobStoreError")
  expect(error.message).toContain(unreachable)
  expect(error.message).not.toContain("\n")
})
