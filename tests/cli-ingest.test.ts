/** `bun core ingest` through the real CLI, on the embedded store in a temp data dir. */
import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sha256 } from "@core/events"
import { validDemo, writeDemo } from "../libs/demos/test/fixture.ts"
import { core, expectOneLineError } from "./support/cli.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-cli-ingest-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const jsonl = (text: string) =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
const dataDir = join(tmp, "data")
const flags = ["--store", "embedded", "--data-dir", dataDir]
const events = async () => jsonl((await core(["events", "tail", "--no-follow", "--filter", "ws.demo.*", ...flags])).stdout)
const blobFiles = (): Array<string> => {
  const walk = (dir: string): Array<string> =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [e.name]))
  try {
    return walk(join(dataDir, "blobs"))
  } catch {
    return []
  }
}

describe("bun core ingest", () => {
  test("a valid demo: blobs stored, one DemoIngested, tasks list shows the demo; again is a no-op", async () => {
    const file = writeDemo(join(tmp, "demos", "shop", "wishlist-1"))
    const before = jsonl((await core(["tasks", "list", "--json", "--suite", "shop", ...flags])).stdout)
    expect(before.find((r) => r.id === "shop-wishlist-add-1")).toMatchObject({ demo: false, demoIds: [] })

    const first = await core(["ingest", join(tmp, "demos"), ...flags])
    expect(first.code).toBe(0)
    expect(first.stdout.trim()).toBe("1 demo files: 1 ingested, 0 unchanged, 0 rejected")
    expect(first.stderr).toContain("ingest: 1/1 ")
    const evs = await events()
    expect(evs).toHaveLength(1)
    expect(evs[0]).toMatchObject({ type: "DemoIngested", version: 1, stream: "ws.demo.shop-wishlist-add-1-a", runId: null })
    expect(evs[0].data).toMatchObject({
      demoId: "shop-wishlist-add-1-a",
      taskId: "shop-wishlist-add-1",
      source: { kind: "file", ref: file }
    })
    const hashes: Array<string> = evs[0].data.steps.flatMap((s: any) => Object.values(s.observation)).filter((h: unknown) => h !== null)
    expect(hashes).toHaveLength(4)
    const stored = blobFiles().join(" ")
    for (const h of hashes) expect(stored).toContain(h)

    const table = await core(["tasks", "list", "--suite", "shop", ...flags])
    expect(table.stdout).toMatch(/^shop-wishlist-add-1\s+shop\s+shop-wishlist-add\s+train\s+search,browse,top-rated\s+yes$/m)
    expect(table.stdout).toMatch(/^shop-wishlist-add-2\s.*\sno$/m)
    const rows = jsonl((await core(["tasks", "list", "--json", "--suite", "shop", ...flags])).stdout)
    expect(rows.find((r) => r.id === "shop-wishlist-add-1")).toMatchObject({ demo: true, demoIds: ["shop-wishlist-add-1-a"] })

    const again = await core(["ingest", file, "--json", ...flags])
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toEqual({ ingested: 0, skipped: 1, rejected: [], failed: [] })
    expect(await events()).toHaveLength(1)
  })

  test("a malformed demo: one-line error naming file and field, exit 1, a DemoRejected, no DemoIngested, no blobs", async () => {
    const bad = validDemo()
    bad.demoId = "shop-wishlist-add-1-broken"
    bad.steps[1].action.kind = "swipe"
    bad.steps[0].observation.screenshot = "fresh.png"
    bad.blobs["fresh.png"] = "shots/s1.png"
    const dir = join(tmp, "bad", "swipe")
    const file = writeDemo(dir, bad)
    const blobsBefore = blobFiles().length
    const eventsBefore = (await events()).length
    const r = await core(["ingest", dir, ...flags])
    expectOneLineError(r, expect)
    expect(r.code).toBe(1)
    const line = r.stderr.split("\n").find((l) => l.startsWith("error:"))!
    expect(line).toStartWith(`error: ${file}: steps[1].action.kind: unknown action kind 'swipe'`)
    expect(r.stdout.trim()).toBe("1 demo files: 0 ingested, 0 unchanged, 1 rejected")
    const evs = (await events()).slice(eventsBefore)
    expect(evs).toHaveLength(1)
    expect(evs[0]).toMatchObject({ type: "DemoRejected", stream: `ws.demo.rejected-${sha256(file)}` })
    expect(evs[0].data).toMatchObject({
      demoId: "shop-wishlist-add-1-broken",
      source: { kind: "file", ref: file },
      stepIndex: 1,
      line: null
    })
    expect(evs[0].data.reason).toStartWith("steps[1].action.kind: unknown action kind 'swipe'")
    expect((await events()).filter((e) => e.type === "DemoIngested" && e.data.demoId === "shop-wishlist-add-1-broken")).toEqual([])
    expect(blobFiles().length).toBe(blobsBefore)

    const json = await core(["ingest", file, "--json", ...flags])
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toEqual({ ingested: 0, skipped: 0, rejected: [{ file, reason: evs[0].data.reason }], failed: [] })
  })

  test("a linked blob and a blob over --max-blob-bytes are refused in one line each; the other demos are still ingested", async () => {
    const root = join(tmp, "hostile")
    const secret = join(tmp, "secret.txt")
    writeFileSync(secret, "do-not-ingest")
    const linked = validDemo()
    linked.demoId = "hostile-linked"
    const linkedFile = writeDemo(join(root, "a-linked"), linked)
    unlinkSync(join(root, "a-linked", "a0.txt"))
    symlinkSync(secret, join(root, "a-linked", "a0.txt"))
    const big = validDemo()
    big.demoId = "hostile-big"
    writeDemo(join(root, "b-big"), big)
    writeFileSync(join(root, "b-big", "e0.json"), JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ id: `e${i}` }))))
    const ok = validDemo()
    ok.demoId = "hostile-ok"
    writeDemo(join(root, "c-ok"), ok)
    const r = await core(["ingest", root, "--json", "--max-blob-bytes", "2KiB", ...flags])
    expectOneLineError(r, expect)
    expect(r.code).toBe(1)
    const s = JSON.parse(r.stdout)
    expect(s).toMatchObject({ ingested: 1, skipped: 0, failed: [] })
    expect(s.rejected.map((x: any) => x.reason)).toEqual([
      `blobs["a0.txt"]: 'a0.txt' is a symbolic link, not a file`,
      expect.stringMatching(/^blobs\["e0\.json"\]: 'e0\.json' is \d\.\d KiB, over the 2 KiB limit per blob \(ingest\.maxBlobBytes\)$/)
    ])
    expect(r.stderr).toContain(`error: 2 of 3 demo files rejected or failed; first: ${linkedFile}: blobs["a0.txt"]`)
    const stored = blobFiles().map((f) => readFileSync(join(dataDir, "blobs", f.slice(0, 2), f), "latin1"))
    expect(stored.join("")).not.toContain("do-not-ingest")
  })

  test("bad usage: no path, a missing path", async () => {
    const none = await core(["ingest", ...flags])
    expectOneLineError(none, expect)
    expect(none.code).toBe(2)
    const missing = await core(["ingest", join(tmp, "nope"), ...flags])
    expectOneLineError(missing, expect)
    expect(missing.stderr).toContain("no such file or directory")
  })
})
