/**
 * What a run records holds no instance: the same small pack run twice, on instances with
 * different ports, records the very same event payloads once run ids, event ids and clocks
 * are set aside — URLs as path, query and (the pack routes by it) fragment, the instance's
 * origin in a refusal as `{base}`. The pack (libs/apps/test/fixtures/links) also links off
 * itself: no step of either run stands on an error page.
 */
import { afterAll, expect, test } from "bun:test"
import { Database } from "bun:sqlite"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fixtureRoot, leftovers, removeRoot } from "../libs/apps/test/support.ts"
import { core } from "./support/cli.ts"

const root = fixtureRoot("no-port")
const data = mkdtempSync(join(tmpdir(), "core-no-port-"))
afterAll(() => {
  removeRoot(root)
  rmSync(data, { recursive: true, force: true })
})

interface Recorded {
  readonly id: string
  readonly causationId: string | null
  readonly runId: string | null
  readonly stream: string
  readonly recordedAt: string
  readonly type: string
  readonly data: Record<string, unknown>
}

const run = async (name: string) => {
  const dir = join(data, name)
  const r = await core([
    "run",
    "--app",
    join(root, "links"),
    "--tasks",
    "l-open-groceries,l-sync-notes",
    "--rounds",
    "1",
    "--samples",
    "1",
    "--json",
    "--store",
    "embedded",
    "--data-dir",
    dir
  ])
  expect(r.stderr).not.toContain("error:")
  expect(r.code).toBe(0)
  const db = new Database(join(dir, "events.db"), { readonly: true })
  const bodies = db.query<{ body: string }, []>("SELECT body FROM commits ORDER BY position").all()
  db.close()
  const events = bodies.flatMap((b) => (JSON.parse(b.body) as { events: Array<Recorded> }).events)
  return { dir, runId: (JSON.parse(r.stdout) as { run_id: string }).run_id, events }
}

/**
 * An event as a comparable text: its type, stream and payload with the run id, event ids,
 * clocks and the data directory (each run has its own) set aside.
 */
const normalised = (e: Recorded, r: { readonly dir: string; readonly runId: string }, ids: ReadonlyArray<string>): string => {
  const text = JSON.stringify({ type: e.type, stream: e.stream, data: e.data }, (key, value) =>
    key === "recordedAt" || key === "timings" || key === "seconds" || /At$|Ms$/.test(key) ? "<time>" : value
  )
  return ids.reduce((t, id, i) => t.split(id).join(`<id${i}>`), text.split(r.dir).join("<data>").split(r.runId).join("<run>"))
}

test("the same pack run twice on different ports records the same events, with no port in any of them", async () => {
  // At once: each run starts its own instance, on its own port.
  const [a, b] = await Promise.all([run("a"), run("b")])
  expect(leftovers(root)).toEqual([])
  const trajectories = (r: typeof a) => r.events.filter((e) => e.type === "TrajectoryRecorded")
  expect(trajectories(a).length).toBeGreaterThan(0)

  // Settings name services (the event store's, a device server's) by their fixed address: every other payload is searched.
  const payloads = (r: typeof a) => r.events.map((e) => JSON.stringify(e.type === "RunStarted" ? { ...e.data, config: null } : e.data))
  for (const p of [...payloads(a), ...payloads(b)]) expect(p).not.toMatch(/127\.0\.0\.1:\d+|localhost:\d+/)

  const steps = (r: typeof a) =>
    trajectories(r).flatMap((e) => {
      const d = e.data as { initial: { url: string | null }; steps: Array<{ observation: { url: string | null; error: string | null } }> }
      return [d.initial, ...d.steps.map((s) => s.observation)] as Array<{ url: string | null; error?: string | null }>
    })
  // Relative, with the fragment the app routes by; a refusal names the instance as {base}; never the error page.
  for (const o of steps(a)) expect(o.url).toMatch(/^\/#\//)
  const refusals = steps(a).flatMap((o) => (o.error == null ? [] : [o.error]))
  expect(refusals).toContain("navigate refused: http://elsewhere.invalid/sync is outside this app's origins ({base})")

  // Ids: events name each other by content hashes that include the run id; they are compared by position.
  const ids = (r: typeof a) => r.events.flatMap((e) => [e.id, ...(e.causationId === null ? [] : [e.causationId])])
  const left = a.events.map((e) => normalised(e, a, [...new Set(ids(a))]))
  const right = b.events.map((e) => normalised(e, b, [...new Set(ids(b))]))
  expect(right).toEqual(left)
}, 150_000)
