/**
 * Decision replay against real stores: an unchanged run replays with no divergence on the
 * embedded store and on JetStream; an altered blob, a changed decider, a changed model
 * request and a changed action are each reported precisely, at the right event.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { jetstreamManager } from "@nats-io/jetstream"
import { Objm } from "@nats-io/obj"
import { connect } from "@nats-io/transport-node"
import { type BlobStore, DirectoryBlobStore, JetStreamBlobStore } from "@core/blobstore"
import { EmbeddedStore, type EventStore, JetStreamStore } from "@core/eventstore"
import { Sandbox } from "@core/sandbox"
import { replayRun } from "../mod.ts"
import type { DeciderRegistry } from "../mod.ts"
import { registryWith, uniqueRun, writeTestRun } from "./fixtures.ts"

const url = process.env.NATS_URL ?? "nats://127.0.0.1:4222"

interface Sut {
  readonly layer: Layer.Layer<EventStore | BlobStore, unknown>
  /** Overwrites a stored blob behind the store's back, as disk corruption or tampering would. */
  readonly tamper: (hash: string, text: string) => Promise<void>
  readonly cleanup: () => Promise<void>
}

const embedded = (): Sut => {
  const dir = mkdtempSync(join(tmpdir(), "core-replay-"))
  const blobDir = join(dir, "blobs")
  return {
    layer: Layer.mergeAll(EmbeddedStore.layer({ path: join(dir, "events.db"), pollMs: 10 }), DirectoryBlobStore.layer({ dir: blobDir })),
    tamper: async (hash, text) => writeFileSync(join(blobDir, hash.slice(0, 2), hash), text),
    cleanup: async () => rmSync(dir, { recursive: true, force: true })
  }
}

const nats = (): Sut => {
  const id = uniqueRun()
  const streamName = `CORE_REPLAY_TEST_${id}`
  const bucket = `core-replay-test-${id}`
  return {
    layer: Layer.mergeAll(JetStreamStore.layer({ url, streamName, prefix: `t${id}` }), JetStreamBlobStore.layer({ url, bucket })),
    tamper: async (hash, text) => {
      const nc = await connect({ servers: url })
      try {
        await (await new Objm(nc).open(bucket)).putBlob({ name: hash }, new TextEncoder().encode(text))
      } finally {
        await nc.close()
      }
    },
    cleanup: async () => {
      const nc = await connect({ servers: url })
      try {
        await (await jetstreamManager(nc)).streams.delete(streamName).catch(() => undefined)
        await (await new Objm(nc).open(bucket)).destroy().catch(() => undefined)
      } finally {
        await nc.close()
      }
    }
  }
}

describe.each([
  ["embedded", embedded],
  ["JetStream", nats]
] as const)("decision replay on the %s store", (_name, make) => {
  let sut: Sut
  let rt: ManagedRuntime.ManagedRuntime<EventStore | BlobStore | Sandbox, unknown>
  const replay = (runId: string, registry: DeciderRegistry = registryWith(), round?: number) =>
    rt.runPromise(replayRun({ runId, registry, ...(round === undefined ? {} : { round }) }))

  beforeAll(async () => {
    sut = make()
    // These deciders evaluate no label functions; the sandbox is there because any decider may.
    rt = ManagedRuntime.make(Layer.mergeAll(sut.layer, Sandbox.layer()))
  })
  afterAll(async () => {
    await rt.dispose()
    await sut.cleanup()
  })

  test("an unchanged run replays with no divergence", async () => {
    const run = await rt.runPromise(writeTestRun(uniqueRun()))
    const report = await replay(run.runId)
    expect(report).toMatchObject({ events: 4, decisionEvents: 1, rederived: 1, divergences: [] })
    expect((await replay(run.runId, registryWith(), 1)).decisionEvents).toBe(1)
    expect((await replay(run.runId, registryWith(), 2)).decisionEvents).toBe(0)
  })

  test("a changed decider: the first divergent event with a field-level diff", async () => {
    const run = await rt.runPromise(writeTestRun(uniqueRun()))
    const logged = (run.verified.data as unknown as { path: Array<string> }).path[0]!
    const report = await replay(run.runId, registryWith({ nodeOffset: 1 }))
    expect(report.divergences).toHaveLength(1)
    const [d] = report.divergences
    expect(d).toMatchObject({
      kind: "changed",
      id: run.verified.id,
      type: "TrajectoryVerified",
      stream: run.verified.stream,
      decider: "test-judge"
    })
    expect(d!.diff).toEqual([{ path: "data.path[0]", logged, rederived: `node-${Number(logged.slice(5)) + 1}` }])
  })

  test("a changed model request is a divergence naming the recorded call", async () => {
    const run = await rt.runPromise(writeTestRun(uniqueRun()))
    const report = await replay(run.runId, registryWith({ extraBody: { temperature: 0.7 } }))
    expect(report.divergences.map((d) => d.kind)).toEqual(["input", "missing"])
    const [input, missing] = report.divergences
    expect(input).toMatchObject({ id: run.trajectory.id, type: "TrajectoryRecorded", inputEvent: run.modelCall.id })
    expect(input!.reason).toContain("request digest")
    expect(input!.diff).toEqual([
      { path: "data.requestDigest", logged: (run.modelCall.data as { requestDigest: string }).requestDigest, rederived: expect.any(String) }
    ])
    expect(missing).toMatchObject({ id: run.verified.id, type: "TrajectoryVerified" })
  })

  test("a different action gets no recorded observation", async () => {
    const run = await rt.runPromise(writeTestRun(uniqueRun()))
    const report = await replay(run.runId, registryWith({ action: { kind: "back" } }))
    const [input] = report.divergences
    expect(input).toMatchObject({ kind: "input", inputEvent: run.trajectory.id })
    expect(input!.diff).toContainEqual({ path: "data.steps[0].action.kind", logged: "click", rederived: "back" })
  })

  test("an altered blob is detected: which blob, which event", async () => {
    const run = await rt.runPromise(writeTestRun(uniqueRun()))
    const hash = run.screenshots[2]!
    await sut.tamper(hash, `${run.runId}: done: order placed!!`)
    const report = await replay(run.runId)
    expect(report.divergences.map((d) => d.kind)).toEqual(["input", "missing"])
    const [input, missing] = report.divergences
    expect(input).toMatchObject({ kind: "input", blob: hash, inputEvent: run.trajectory.id, id: run.trajectory.id, decider: "test-judge" })
    expect(input!.diff).toEqual([
      { path: "data.steps[1].observation.screenshot", logged: hash, rederived: expect.stringMatching(/^[0-9a-f]{64}$/) }
    ])
    expect(input!.reason).toContain(hash)
    expect(missing!.id).toBe(run.verified.id)
  })

  test("an unknown run is RunNotFound", async () => {
    const error = await rt.runPromise(Effect.flip(replayRun({ runId: uniqueRun(), registry: registryWith() })))
    expect(error._tag).toBe("RunNotFound")
    expect(error.message).not.toContain("\n")
  })
})
