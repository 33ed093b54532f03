import { connect } from "@nats-io/transport-node"
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { JetStreamStore } from "../JetStreamStore.ts"
import { conformance, uniqueRun } from "./conformance.ts"

const url = process.env.NATS_URL ?? "nats://127.0.0.1:4222"

conformance(`JetStream (${url})`, async () => {
  const id = uniqueRun()
  const streamName = `CORE_TEST_${id}`
  const prefix = `t${id}`
  const nc = await connect({ servers: url })
  return {
    // A short duplicate window makes the late-retry test go through the read-back path.
    layer: JetStreamStore.layer({ url, streamName, prefix, duplicateWindowMs: 1000 }),
    rawAppend: async (stream, body) => {
      await jetstream(nc).publish(`${prefix}.${stream}`, body)
    },
    cleanup: async () => {
      await (await jetstreamManager(nc)).streams.delete(streamName).catch(() => undefined)
      await nc.close()
    }
  }
})
