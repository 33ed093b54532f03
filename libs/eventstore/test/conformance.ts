/**
 * One conformance suite for every EventStore layer (Emmett style: one interface, one
 * shared suite). Each layer's test file supplies a fresh, isolated store; every test
 * uses its own run id, so streams and filters never see another test's events.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Deferred, Effect, Fiber, type Layer, ManagedRuntime, Stream } from "effect"
import { JobQueued, makeEvent, runStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import { EventStore } from "../EventStore.ts"
import type { RecordedEvent } from "../EventStore.ts"

export interface StoreUnderTest {
  readonly layer: Layer.Layer<EventStore, unknown>
  /** Writes a commit body straight into the log, bypassing the catalog (to plant bad events). */
  readonly rawAppend: (stream: string, body: string) => Promise<void>
  readonly cleanup: () => Promise<void>
}

let counter = 0
export const uniqueRun = () => `r${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`

export const job = (runId: string, stream: string, ordinal: number, extra: Record<string, unknown> = {}): CoreEvent =>
  makeEvent(JobQueued, {
    stream,
    runId,
    causationId: `cause-${stream}`,
    ordinal,
    recordedAt: "2026-12-02T00:00:00.000Z",
    data: { jobId: `j${ordinal}`, kind: "rollout", round: 1, taskId: "t1", params: { ordinal, ...extra } }
  })

export const conformance = (name: string, make: () => Promise<StoreUnderTest>) =>
  describe(`EventStore conformance: ${name}`, () => {
    let sut: StoreUnderTest
    let rt: ManagedRuntime.ManagedRuntime<EventStore, unknown>
    const run = <A, E>(eff: Effect.Effect<A, E, EventStore>) => rt.runPromise(eff)
    const fail = <A, E>(eff: Effect.Effect<A, E, EventStore>) => rt.runPromise(Effect.flip(eff))
    const store = Effect.service(EventStore)

    beforeAll(async () => {
      sut = await make()
      rt = ManagedRuntime.make(sut.layer)
      await rt.runPromise(store)
    })
    afterAll(async () => {
      await rt.dispose()
      await sut.cleanup()
    })

    test("a new stream starts at revision 0 and reads back in order", async () => {
      const r = uniqueRun()
      const s = runStream(r, "job", "a")
      const first = await run(Effect.flatMap(store, (st) => st.append(s, [job(r, s, 0), job(r, s, 1)], { expectedRevision: 0 })))
      expect(first.revision).toBeGreaterThan(0)
      expect(first.position).toBe(first.revision)
      const second = await run(Effect.flatMap(store, (st) => st.append(s, [job(r, s, 2)], { expectedRevision: first.revision })))
      expect(second.position).toBeGreaterThan(first.position)
      const events = await run(Effect.flatMap(store, (st) => st.readStream(s)))
      expect(events.map((e) => e.event.id)).toEqual([job(r, s, 0).id, job(r, s, 1).id, job(r, s, 2).id])
      expect(events.map((e) => [e.position, e.index])).toEqual([
        [first.position, 0],
        [first.position, 1],
        [second.position, 0]
      ])
      expect(events[0]!.event).toEqual(job(r, s, 0))
    })

    test("a wrong expected revision is a ConcurrencyError naming the actual one", async () => {
      const r = uniqueRun()
      const s = runStream(r, "job", "a")
      const a = await run(Effect.flatMap(store, (st) => st.append(s, [job(r, s, 0)], { expectedRevision: 0 })))
      const err = await fail(Effect.flatMap(store, (st) => st.append(s, [job(r, s, 1)], { expectedRevision: 0 })))
      expect(err._tag).toBe("ConcurrencyError")
      expect(err).toMatchObject({ stream: s, expected: 0, actual: a.revision })
    })

    test("concurrent appends to one stream: exactly one wins", async () => {
      const r = uniqueRun()
      const s = runStream(r, "job", "race")
      const attempts = Array.from({ length: 8 }, (_, i) =>
        Effect.flatMap(store, (st) => st.append(s, [job(r, s, 100 + i)], { expectedRevision: 0 })).pipe(Effect.result)
      )
      const results = await run(Effect.all(attempts, { concurrency: "unbounded" }))
      const wins = results.filter((x) => x._tag === "Success")
      const losses = results.filter((x) => x._tag === "Failure")
      expect(wins.length).toBe(1)
      expect(losses.length).toBe(7)
      for (const l of losses) expect(l._tag === "Failure" && l.failure._tag).toBe("ConcurrencyError")
      expect((await run(Effect.flatMap(store, (st) => st.readStream(s)))).length).toBe(1)
    })

    test("a retry of a commit that already landed succeeds without a duplicate", async () => {
      const r = uniqueRun()
      const s = runStream(r, "job", "retry")
      const commit = [job(r, s, 0), job(r, s, 1)]
      const a = await run(Effect.flatMap(store, (st) => st.append(s, commit, { expectedRevision: 0 })))
      const again = await run(Effect.flatMap(store, (st) => st.append(s, commit, { expectedRevision: 0 })))
      expect(again).toEqual(a)
      // Even after another commit followed it, the retry is recognised by reading the commit at that revision.
      await run(Effect.flatMap(store, (st) => st.append(s, [job(r, s, 2)], { expectedRevision: a.revision })))
      const late = await run(Effect.flatMap(store, (st) => st.append(s, commit, { expectedRevision: 0 })))
      expect(late).toEqual(a)
      const events = await run(Effect.flatMap(store, (st) => st.readStream(s)))
      expect(events.map((e) => e.event.id)).toEqual([commit[0]!.id, commit[1]!.id, job(r, s, 2).id])
    })

    test("readAll returns commits in log order, filtered by stream pattern and start position", async () => {
      const r = uniqueRun()
      const streams = ["a", "b", "c"].map((k) => runStream(r, "job", k))
      const revs = new Map<string, number>()
      const positions: Array<[number, string]> = []
      for (let i = 0; i < 12; i++) {
        const s = streams[i % 3]!
        const res = await run(Effect.flatMap(store, (st) => st.append(s, [job(r, s, i)], { expectedRevision: revs.get(s) ?? 0 })))
        revs.set(s, res.revision)
        positions.push([res.position, job(r, s, i).id])
      }
      const all = await run(Effect.flatMap(store, (st) => Stream.runCollect(st.readAll({ filter: `run.${r}.>` }))))
      expect(all.map((e) => [e.position, e.event.id])).toEqual(positions)
      const onlyB = await run(Effect.flatMap(store, (st) => Stream.runCollect(st.readAll({ filter: `run.${r}.job.b` }))))
      expect(onlyB.map((e) => e.event.stream)).toEqual(Array(4).fill(streams[1]))
      const wildcard = await run(Effect.flatMap(store, (st) => Stream.runCollect(st.readAll({ filter: `run.${r}.*.c` }))))
      expect(wildcard.length).toBe(4)
      const from = positions[6]![0]
      const tail = await run(Effect.flatMap(store, (st) => Stream.runCollect(st.readAll({ filter: `run.${r}.>`, from }))))
      expect(tail.map((e) => e.position)).toEqual(positions.slice(6).map((p) => p[0]))
      const head = await run(Effect.flatMap(store, (st) => st.head()))
      expect(head).toBeGreaterThanOrEqual(positions[11]![0])
    })

    test("readAll from any position over many streams ends exactly at the last commit", async () => {
      const r = uniqueRun()
      const streams = Array.from({ length: 300 }, (_, k) => runStream(r, "job", `m${k}`))
      const positions = await run(
        Effect.forEach(
          streams,
          (s, k) =>
            Effect.gen(function* () {
              const st = yield* EventStore
              let revision = 0
              const out: Array<number> = []
              for (let i = 0; i < 5; i++) {
                const e = job(r, s, i, { k })
                revision = (yield* st.append(s, k % 7 === 0 ? [e, job(r, s, 100 + i)] : [e], { expectedRevision: revision })).revision
                out.push(revision)
              }
              return out
            }),
          { concurrency: 32 }
        )
      )
      const all = positions.flat().sort((a, b) => a - b)
      for (const from of [all[0]!, all[400]!, all[999]!, all[1490]!, all[all.length - 1]!, all[all.length - 1]! + 1]) {
        const read = await run(Effect.flatMap(store, (st) => Stream.runCollect(st.readAll({ filter: `run.${r}.>`, from }))))
        expect([...new Set(read.map((e) => e.position))]).toEqual(all.filter((p) => p >= from))
      }
    })

    test("a live readAll sees commits appended after it started", async () => {
      const r = uniqueRun()
      const s = runStream(r, "job", "live")
      await run(Effect.flatMap(store, (st) => st.append(s, [job(r, s, 0)], { expectedRevision: 0 })))
      const seen = await run(
        Effect.gen(function* () {
          const st = yield* EventStore
          const fiber = yield* Effect.forkChild(Stream.runCollect(Stream.take(st.readAll({ filter: `run.${r}.>`, live: true }), 3)))
          yield* Effect.sleep("200 millis")
          const a = yield* st.readStream(s)
          const x = yield* st.append(s, [job(r, s, 1)], { expectedRevision: a[a.length - 1]!.position })
          yield* st.append(s, [job(r, s, 2)], { expectedRevision: x.revision })
          return yield* Fiber.join(fiber)
        })
      )
      expect(seen.map((e) => e.event.id)).toEqual([0, 1, 2].map((i) => job(r, s, i).id))
    })

    test("a durable subscriber stopped mid-way resumes without loss", async () => {
      const r = uniqueRun()
      const s = runStream(r, "job", "sub")
      const appendN = (from: number, n: number, rev: number) =>
        Effect.gen(function* () {
          const st = yield* EventStore
          let revision = rev
          for (let i = from; i < from + n; i++) revision = (yield* st.append(s, [job(r, s, i)], { expectedRevision: revision })).revision
          return revision
        })
      const rev = await run(appendN(0, 20, 0))
      const seen: Array<string> = []
      const consume = (enoughWhen: () => boolean) =>
        Effect.gen(function* () {
          const st = yield* EventStore
          const enough = yield* Deferred.make<void>()
          const fiber = yield* Effect.forkChild(
            st.subscribe(
              `c-${r}`,
              (e: RecordedEvent) =>
                Effect.sync(() => {
                  seen.push(e.event.id)
                  if (enoughWhen()) Deferred.doneUnsafe(enough, Effect.void)
                }),
              { filter: `run.${r}.>` }
            )
          )
          yield* Deferred.await(enough).pipe(Effect.timeout("20 seconds"))
          yield* Fiber.interrupt(fiber)
        })
      await run(consume(() => seen.length >= 7))
      expect(seen.length).toBeGreaterThanOrEqual(7)
      await run(appendN(20, 10, rev))
      await run(consume(() => new Set(seen).size >= 30))
      const expected = Array.from({ length: 30 }, (_, i) => job(r, s, i).id)
      expect(new Set(seen)).toEqual(new Set(expected))
      // At-least-once: at most the commit in flight when it stopped is seen twice.
      expect(seen.length - new Set(seen).size).toBeLessThanOrEqual(1)
    })

    test("an event over 256 KB is refused at append and nothing is written", async () => {
      const r = uniqueRun()
      const s = runStream(r, "job", "big")
      const err = await fail(
        Effect.flatMap(store, (st) => st.append(s, [job(r, s, 0, { blob: "x".repeat(300 * 1024) })], { expectedRevision: 0 }))
      )
      expect(err._tag).toBe("EventTooLarge")
      expect(err.message).toContain("262144")
      expect(err.message).not.toContain("\n")
      expect(await run(Effect.flatMap(store, (st) => st.readStream(s)))).toEqual([])
    })

    test("malformed commits are refused before they reach the log", async () => {
      const r = uniqueRun()
      const s = runStream(r, "job", "bad")
      expect((await fail(Effect.flatMap(store, (st) => st.append(s, [], { expectedRevision: 0 }))))._tag).toBe("InvalidAppend")
      const other = runStream(r, "job", "other")
      const err = await fail(Effect.flatMap(store, (st) => st.append(s, [job(r, other, 0)], { expectedRevision: 0 })))
      expect(err._tag).toBe("InvalidAppend")
      expect(await run(Effect.flatMap(store, (st) => st.readStream(s)))).toEqual([])
    })

    test("an event of unknown version is a one-line error at its position; earlier events still read", async () => {
      const r = uniqueRun()
      const s = runStream(r, "job", "future")
      const ok = await run(Effect.flatMap(store, (st) => st.append(s, [job(r, s, 0)], { expectedRevision: 0 })))
      const future = { ...job(r, s, 1), version: 99 }
      await sut.rawAppend(s, JSON.stringify({ commitId: "future-commit", events: [future] }))
      const err = await fail(Effect.flatMap(store, (st) => Stream.runCollect(st.readAll({ filter: `run.${r}.>` }))))
      expect(err._tag).toBe("UnreadableEvent")
      expect(err.message).toMatch(/position \d+: unknown version 99 of event 'JobQueued'/)
      expect(err.message).not.toContain("\n")
      const before = await run(Effect.flatMap(store, (st) => Stream.runCollect(Stream.take(st.readAll({ filter: `run.${r}.>` }), 1))))
      expect(before.map((e) => e.position)).toEqual([ok.position])
    })
  })
