/**
 * `bun core record --from steps.json` for real: a step file played headless in Chromium on the
 * bundled shop (no display, no Xvfb), written as a demo folder that `bun core ingest` takes;
 * a step whose target is not on the page is one `error:` line, exit 1, and nothing written;
 * a value typed by reference into a field that is no password field (the shop's search box,
 * which echoes it in the results page's heading, title, fields and URL) is in no file of the
 * demo, and after ingest in no event or blob.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, expectOneLineError } from "./support/cli.ts"

const TASK = "shop-wishlist-add-1"
const PRODUCT = "Harbor Modern Trekking Poles"
const tmp = mkdtempSync(join(tmpdir(), "core-cli-record-steps-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** The shop's scripted "search" solution of the task (apps/sites/solutions/shop.ts), by role and name. */
const stepFile = (addButton: string) => ({
  version: 1,
  steps: [
    { kind: "type", target: { role: "searchbox", name: "Search products" }, text: PRODUCT, submit: true },
    { kind: "click", target: { role: "link", name: PRODUCT } },
    { kind: "click", target: { role: "button", name: addButton } },
    { kind: "status", status: "complete" }
  ]
})

const write = (name: string, json: unknown): string => {
  const file = join(tmp, name)
  writeFileSync(file, JSON.stringify(json))
  return file
}

// No display: --from never needs one.
const headless = { DISPLAY: "", WAYLAND_DISPLAY: "" }

/** Every file under `dir` as bytes read as latin1: a value any of them holds shows here. */
const everything = (dir: string): string =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), "latin1"))
    .join("\n")

describe("bun core record --from", () => {
  test("a step file becomes a demo that ingest accepts; an unresolvable step writes nothing", async () => {
    const out = join(tmp, "demo")
    const r = await core(
      [
        "record",
        "--task",
        TASK,
        "--from",
        write("wish.json", stepFile("Add to wish list")),
        "--out",
        out,
        "--demo-id",
        "wish-steps",
        "--json"
      ],
      headless
    )
    expect(r.stderr).not.toContain("error:")
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ demo: join(out, "demo.json"), steps: 4, demoId: "wish-steps", taskId: TASK })
    const demo = JSON.parse(readFileSync(join(out, "demo.json"), "utf8"))
    expect(demo).toMatchObject({ demoId: "wish-steps", taskId: TASK, recordedWith: "script" })
    expect(demo.steps.map((s: any) => [s.action.kind, s.action.target?.role ?? null, s.action.target?.name ?? null])).toEqual([
      ["type", "searchbox", "Search products"],
      ["click", "link", PRODUCT],
      ["click", "button", "Add to wish list"],
      ["status", null, null]
    ])
    // Element ids come from the live page; URLs are paths, never the server's address.
    expect(demo.steps[1].action.target.elementId).toMatch(/^e\d+$/)
    expect(demo.steps[0].urlBefore).toBe("/shop/")
    expect(JSON.stringify(demo)).not.toContain("127.0.0.1")
    // The page at reset is the demo's `initial` (version 2), with the first step's target in it.
    expect(demo.version).toBe(2)
    const opened = JSON.parse(readFileSync(join(out, demo.blobs[demo.initial.elements]), "utf8")).elements as Array<any>
    expect(opened.find((e) => e.id === demo.steps[0].action.target.elementId)).toMatchObject({ role: "searchbox", name: "Search products" })

    const ingested = await core(["ingest", out, "--json", "--store", "embedded", "--data-dir", join(tmp, "data")])
    expect(ingested.code).toBe(0)
    expect(JSON.parse(ingested.stdout)).toMatchObject({ ingested: 1, rejected: [], failed: [] })

    const badFile = write("bad.json", stepFile("Add to wishlist"))
    const badOut = join(tmp, "bad")
    const bad = await core(["record", "--task", TASK, "--from", badFile, "--out", badOut], headless)
    expectOneLineError(bad, expect)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain(
      `error: ${badFile}: step 3 (click button "Add to wishlist"): no element matches; closest on the page: button "Add to wish list", `
    )
    expect(bad.stdout).toBe("")
    expect(existsSync(badOut)).toBe(false)
  })

  test("a secret typed by reference into the search box is in no file of the demo, and after ingest in no event or blob", async () => {
    const secret = `vault-${crypto.randomUUID().slice(0, 8)}`
    const steps = {
      version: 1,
      steps: [
        { kind: "type", target: { role: "searchbox", name: "Search products" }, secretEnv: "SHOP_TEST_SEARCH_KEY", submit: true },
        { kind: "status", status: "complete" }
      ]
    }
    const out = join(tmp, "secret")
    const args = ["record", "--task", TASK, "--from", write("secret.json", steps), "--out", out, "--demo-id", "secret-steps", "--json"]
    const r = await core(args, { ...headless, SHOP_TEST_SEARCH_KEY: secret })
    expect(r.stderr).not.toContain("error:")
    expect(r.code).toBe(0)
    const demo = JSON.parse(readFileSync(join(out, "demo.json"), "utf8"))
    expect(demo.steps[0].action).toMatchObject({ kind: "type", text: "", secretEnv: "SHOP_TEST_SEARCH_KEY", submit: true })
    // The search did run: the results page echoes the query, masked.
    const masked = "•".repeat(secret.length)
    expect(decodeURIComponent(demo.steps[0].urlAfter)).toBe(`/shop/search?q=${masked}`)
    expect(readFileSync(join(out, demo.blobs[demo.steps[0].observation.aria]), "utf8")).toContain(`Results for “${masked}”`)
    expect(everything(out).includes(secret)).toBe(false)

    const data = join(tmp, "secret-data")
    const flags = ["--store", "embedded", "--data-dir", data]
    const ingested = await core(["ingest", out, "--json", ...flags])
    expect(JSON.parse(ingested.stdout)).toMatchObject({ ingested: 1, rejected: [], failed: [] })
    const events = await core(["events", "tail", "--no-follow", "--filter", "ws.demo.*", ...flags])
    expect(events.stdout).toContain("secret-steps")
    expect(events.stdout).not.toContain(secret)
    expect(everything(join(data, "blobs")).includes(secret)).toBe(false)
  })
})
