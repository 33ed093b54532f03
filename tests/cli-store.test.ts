/**
 * The store as a user meets it through `bun core`: demo and events tail on both stores,
 * and three bad inputs every store must survive — a corrupt embedded file, a NATS URL
 * that does not answer, an event of unknown version in the log — each a one-line error
 * that loses nothing already committed.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Database } from "bun:sqlite"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, expectOneLineError, spawnCore } from "./support/cli.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-cli-store-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

interface DemoSummary {
  readonly store: string
  readonly run_id: string
  readonly events_written: number
  readonly events_read: number
  readonly round_trip: string
}

const jsonl = (text: string) =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))

describe.each([["embedded"], ["nats"]])("demo and events tail on the %s store", (store) => {
  const dataDir = join(tmp, `data-${store}`)
  const flags = ["--store", store, "--data-dir", dataDir]

  test("demo round-trips a run and says which store it used", async () => {
    const r = await core(["demo", "--round-trip", "--json", ...flags])
    expect(r.code).toBe(0)
    const s: DemoSummary = JSON.parse(r.stdout)
    expect(s).toMatchObject({ store, events_written: 7, events_read: 7, round_trip: "ok" })
    expect(r.stderr).toContain(`store: ${store}`)
    expect(r.stderr).toContain("store round trip")
  })

  test("events tail --no-follow prints the run's events as JSONL, filtered by type", async () => {
    const d: DemoSummary = JSON.parse((await core(["demo", "--round-trip", "--json", ...flags])).stdout)
    const all = await core(["events", "tail", "--no-follow", "--filter", `run.${d.run_id}.>`, ...flags])
    expect(all.code).toBe(0)
    const events = jsonl(all.stdout)
    expect(events.map((e) => e.type)).toEqual(["RunStarted", ...Array(3).fill(["JobQueued", "JobCompleted"]).flat()])
    expect(events.every((e) => e.runId === d.run_id && typeof e.position === "number")).toBe(true)
    const only = await core(["events", "tail", "--no-follow", "--filter", `run.${d.run_id}.>`, "--type", "JobCompleted", ...flags])
    expect(jsonl(only.stdout).map((e) => e.type)).toEqual(["JobCompleted", "JobCompleted", "JobCompleted"])
  })

  test("events tail follows events as they arrive", async () => {
    const head = jsonl((await core(["events", "tail", "--no-follow", ...flags])).stdout)
    const from = head.length > 0 ? head[head.length - 1].position + 1 : 1
    const tail = spawnCore(["events", "tail", "--from", String(from), "--type", "RunStarted", ...flags])
    try {
      await Bun.sleep(500)
      const d: DemoSummary = JSON.parse((await core(["demo", "--round-trip", "--json", ...flags])).stdout)
      const reader = tail.stdout.getReader()
      let text = ""
      const deadline = Date.now() + 15_000
      while (!text.includes(d.run_id) && Date.now() < deadline) {
        const chunk = await Promise.race([reader.read(), Bun.sleep(15_000).then(() => null)])
        if (!chunk || chunk.done) break
        text += new TextDecoder().decode(chunk.value)
      }
      expect(jsonl(text).some((e) => e.type === "RunStarted" && e.runId === d.run_id)).toBe(true)
    } finally {
      tail.kill()
    }
  })
})

test("a corrupt embedded database is a one-line error and the file is left untouched", async () => {
  const dir = join(tmp, "corrupt")
  const file = join(dir, "events.db")
  await Bun.write(file, "this is not a sqlite database, but it is somebody's file\n".repeat(100))
  const before = readFileSync(file)
  const r = await core(["demo", "--round-trip", "--store", "embedded", "--data-dir", dir])
  expectOneLineError(r, expect)
  expect(r.stderr).toMatch(/error: event store .*events\.db is unavailable: file is not a database/)
  expect(readFileSync(file).equals(before)).toBe(true)
})

test("a configured NATS URL that does not answer is a one-line error, not a fallback", async () => {
  const r = await core(["demo", "--round-trip"], { NATS_URL: "nats://127.0.0.1:1" })
  expectOneLineError(r, expect)
  expect(r.stderr).toContain("error: event store nats://127.0.0.1:1 is unavailable")
  expect(r.stdout).toBe("")
})

test("an event of unknown version stops the reader with one line; everything committed stays readable", async () => {
  const dir = join(tmp, "future")
  const d: DemoSummary = JSON.parse((await core(["demo", "--round-trip", "--json", "--store", "embedded", "--data-dir", dir])).stdout)
  const db = new Database(join(dir, "events.db"))
  const commits = () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM commits").get()!.n
  const before = commits()
  const stream = `run.${d.run_id}.job.future`
  const future = {
    id: "f".repeat(64),
    type: "JobQueued",
    version: 7,
    stream,
    runId: d.run_id,
    causationId: null,
    recordedAt: "2030-01-01T00:00:00.000Z",
    data: { from: "a newer core" }
  }
  db.query("INSERT INTO commits (stream, commit_id, body) VALUES (?, ?, ?)").run(
    stream,
    "future",
    JSON.stringify({ commitId: "future", events: [future] })
  )
  const r = await core(["events", "tail", "--no-follow", "--store", "embedded", "--data-dir", dir])
  expectOneLineError(r, expect)
  expect(r.stderr).toMatch(/error: event at log position \d+: unknown version 7 of event 'JobQueued'/)
  expect(jsonl(r.stdout).length).toBe(7)
  // A later demo still appends: the log was not damaged by the reader's refusal.
  const again = await core(["demo", "--round-trip", "--json", "--store", "embedded", "--data-dir", dir])
  expect(again.code).toBe(0)
  expect(commits()).toBe(before + 1 + 7)
  db.close()
})

test("secrets set in the environment never appear in any event; their names do", async () => {
  const dir = join(tmp, "secrets")
  const key = "sk-live-TOPSECRET-0123456789"
  const password = "hunter2-TOPSECRET"
  const env = { CORE_MODEL_API_KEY: key, DATABASE_URL: `postgres://core:${password}@127.0.0.1:5432/test` }
  for (const store of ["embedded", "nats"]) {
    const d: DemoSummary = JSON.parse((await core(["demo", "--round-trip", "--json", "--store", store, "--data-dir", dir], env)).stdout)
    const tail = await core(["events", "tail", "--no-follow", "--filter", `run.${d.run_id}.>`, "--store", store, "--data-dir", dir], env)
    expect(tail.code).toBe(0)
    expect(tail.stdout).not.toContain(key)
    expect(tail.stdout).not.toContain(password)
    const started = jsonl(tail.stdout).find((e) => e.type === "RunStarted")
    expect(started.data.config["models.apiKeyEnv"]).toBe("CORE_MODEL_API_KEY")
    expect(started.data.config["database.url"]).toBe("postgres://core:***@127.0.0.1:5432/test")
    expect(started.data.configSources["database.url"]).toBe("env:DATABASE_URL")
  }
  // And not in the embedded file's bytes either, whatever a reader would decode.
  for (const f of ["events.db", "events.db-wal"].map((n) => join(dir, n)).filter(existsSync)) {
    const raw = readFileSync(f).toString("latin1")
    expect(raw.includes(key) || raw.includes(password)).toBe(false)
  }
})
