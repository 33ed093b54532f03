/** `bun core tasks list|register` through the real CLI, on the embedded store in a temp data dir. */
import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { loadSuites } from "@core/sites/suites"
import { cleanEnv, core, expectOneLineError, REPO } from "./support/cli.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-cli-tasks-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const suites = await Effect.runPromise(loadSuites())
const total = suites.reduce((n, s) => n + s.tasks.length, 0)
/** `tasks list` reads the log for demos: give it a store of its own. */
const listStore = ["--store", "embedded", "--data-dir", join(tmp, "list")]
const jsonl = (text: string) =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))

describe("bun core tasks", () => {
  test("list: a table and JSON lines with site, template, split, path families and demo", async () => {
    const table = await core(["tasks", "list", "--suite", "shop", ...listStore])
    expect(table.code).toBe(0)
    expect(table.stdout).toMatch(/^INSTANCE\s+SITE\s+TEMPLATE\s+SPLIT\s+PATH FAMILIES\s+DEMO$/m)
    expect(table.stdout).toMatch(/^shop-buy-3\s+shop\s+shop-buy\s+held-out\s+search-quantity,browse-cart-update\s+no$/m)
    const rows = jsonl((await core(["tasks", "list", "--json", ...listStore])).stdout)
    expect(rows.length).toBeGreaterThanOrEqual(24)
    expect(rows.find((r) => r.id === "shop-wishlist-add-1")).toMatchObject({
      site: "shop",
      template: "shop-wishlist-add",
      split: "train",
      pathFamilies: ["search", "browse", "top-rated"],
      demo: false
    })
    expect((await core(["tasks", "list", "--help"])).stdout).toContain("bun core ingest")
  })

  test("an unknown suite is a one-line usage error", async () => {
    const r = await core(["tasks", "list", "--suite", "nope"])
    expectOneLineError(r, expect)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`unknown suite 'nope' (known: ${suites.map((s) => s.suite).join(", ")})`)
  })

  test("register: one TaskRegistered per instance, and again is a no-op", async () => {
    const flags = ["--store", "embedded", "--data-dir", join(tmp, "data")]
    const count = jsonl((await core(["tasks", "list", "--json", "--suite", "shop", ...listStore])).stdout).length
    const first = await core(["tasks", "register", "--suite", "shop", ...flags])
    expect(first.code).toBe(0)
    expect(first.stdout.trim()).toBe(`${count} tasks: ${count} registered, 0 updated, 0 unchanged`)
    expect(first.stderr).toContain(`tasks: ${count}/${count} `)
    const events = jsonl((await core(["events", "tail", "--no-follow", "--filter", "ws.task.*", ...flags])).stdout)
    expect(events).toHaveLength(count)
    const buy = events.find((e) => e.stream === "ws.task.shop-buy-1")!
    expect(buy).toMatchObject({ type: "TaskRegistered", version: 2, runId: null })
    expect(buy.data).toMatchObject({
      taskId: "shop-buy-1",
      site: "shop",
      suite: "shop",
      template: { id: "shop-buy" },
      siteSeed: 101,
      checker: "shop.order",
      platform: "web",
      startUrl: "/shop/",
      app: null
    })
    expect(buy.data.instruction).toStartWith("Buy ")

    const again = await core(["tasks", "register", ...flags])
    expect(again.code).toBe(0)
    expect(again.stdout.trim()).toBe(`${total} tasks: ${total - count} registered, 0 updated, ${count} unchanged`)
    expect(jsonl((await core(["events", "tail", "--no-follow", "--filter", "ws.task.*", ...flags])).stdout)).toHaveLength(total)
    // A reader slower than the command still gets every line: the exit must not cut off what is still on its way to the pipe.
    const command = ["bun", "apps/cli/main.ts", "events", "tail", "--no-follow", "--filter", "'ws.task.*'", ...flags].join(" ")
    const slow = Bun.spawn(["sh", "-c", `${command} | (sleep 1.5; cat)`], { cwd: REPO, env: cleanEnv(), stdout: "pipe", stderr: "pipe" })
    expect(jsonl(await new Response(slow.stdout).text())).toHaveLength(total)
    expect(await slow.exited).toBe(0)
  })
})
