/**
 * The recorded fixture run (tests/fixtures/replay-run: two forum tasks, one round) as spec
 * material: its log in order, decoded as any reader of the log decodes it, and its blobs
 * handed to the specs' blob store. The log is read from a copy: nothing is written beside
 * the fixture.
 *
 * @example
 * const log = fixtureLog()
 * const i = log.findIndex((e) => e.type === "JobQueued" && e.data.jobId === "rollout-r1-s0-forum-open-board-1")
 * spec(rollouts).given(log.slice(0, i)).when(log[i]!).recorded(log.slice(i + 1))
 */
import { Database } from "bun:sqlite"
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Result } from "effect"
import { catalog } from "@core/events"
import type { CoreEvent } from "@core/events"
import { blob } from "./Events.ts"

export const FIXTURE_RUN = "run-mx9cfcfn-0a9e49"
const FIXTURE = join(import.meta.dir, "..", "..", "..", "..", "tests", "fixtures", "replay-run")

let cached: ReadonlyArray<CoreEvent> | null = null

/** Every event of the fixture's log, in log order; its blobs join the pending ones. */
export const fixtureLog = (): ReadonlyArray<CoreEvent> => {
  if (cached !== null) return cached
  const dir = mkdtempSync(join(tmpdir(), "core-spec-fixture-"))
  try {
    copyFileSync(join(FIXTURE, "events.db"), join(dir, "events.db"))
    const db = new Database(join(dir, "events.db"), { readonly: true })
    const rows = db.query("SELECT body FROM commits ORDER BY position").all() as ReadonlyArray<{ body: string }>
    db.close()
    cached = rows.flatMap((r) =>
      (JSON.parse(r.body) as { events: ReadonlyArray<unknown> }).events.map((raw) => {
        const decoded = catalog.decode(raw)
        if (Result.isFailure(decoded)) throw new Error(`the fixture log has an event that does not decode: ${decoded.failure.message}`)
        return decoded.success as CoreEvent
      })
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  for (const prefix of readdirSync(join(FIXTURE, "blobs"))) {
    for (const name of readdirSync(join(FIXTURE, "blobs", prefix))) blob(readFileSync(join(FIXTURE, "blobs", prefix, name)))
  }
  return cached
}

/** What the log holds as `decider`'s decisions on `cause`, as `[id, data]`: what a spec of it re-derives. */
export const loggedDecisions = (log: ReadonlyArray<CoreEvent>, cause: CoreEvent, decider: { readonly emits: ReadonlyArray<string> }) =>
  log.filter((e) => e.causationId === cause.id && decider.emits.includes(e.type)).map((e) => [e.id, e.data])

/** Decided events as `[id, data]`, to compare with `loggedDecisions`. */
export const idsAndData = (events: ReadonlyArray<CoreEvent>) => events.map((e) => [e.id, e.data])
