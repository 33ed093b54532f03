/**
 * `bun core record` for real: under xvfb-run, a headed Chromium on the bundled sites, driven
 * through DevTools (`--cdp-port`) with real input events as a person's would be, ended from
 * stdin. CI installs xvfb: a missing xvfb-run fails these tests, it never skips them.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium } from "playwright-core"
import type { Browser, Page } from "playwright-core"
import { loadDemo } from "@core/demos"
import { sha256 } from "@core/events"
import { loadSuites } from "@core/sites/suites"
import { cleanEnv, core, expectOneLineError, REPO } from "./support/cli.ts"

const XVFB_RUN = "/usr/bin/xvfb-run"
const TASK = "shop-wishlist-add-1"
const PRODUCT = "Northwind Everyday T-Shirt"
const tmp = mkdtempSync(join(tmpdir(), "core-cli-record-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

interface Recorder {
  readonly page: Page
  /** Resolves once stderr matches (fails early if the recorder exits first). */
  waitFor(pattern: RegExp): Promise<void>
  send(line: string): void
  /** Waits for the exit; then disconnects from the browser. */
  exit(): Promise<{ code: number; stdout: string; stderr: string }>
}

/**
 * Set in the environment of every recorder this file starts, and so inherited by xvfb-run's
 * Xvfb, `bun core record` and its Chromium: how the tests find what they started, and only that.
 */
const TAG = `CORE_RECORD_TEST_TAG=${crypto.randomUUID()}`

/** The live processes carrying TAG (a zombie's environ reads empty, so it does not count). */
const tagged = (): Array<string> =>
  readdirSync("/proc").flatMap((pid) => {
    if (!/^\d+$/.test(pid)) return []
    try {
      if (!readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(TAG)) return []
      return [`${readFileSync(`/proc/${pid}/comm`, "utf8").trim()} (${pid})`]
    } catch {
      return [] // gone meanwhile
    }
  })

/** Polls until every tagged process has exited (xvfb-run stops its Xvfb without waiting); returns any left. */
const survivors = async (): Promise<Array<string>> => {
  for (let i = 0; i < 100 && tagged().length > 0; i++) await Bun.sleep(100)
  return tagged()
}

interface Running {
  readonly proc: { readonly pid: number; readonly exitCode: number | null; readonly exited: Promise<number>; stdin: { end(): unknown } }
  browser: Browser | null
}

/**
 * Ends a recorder still running: stdin closed (it discards and exits), then, if it has not
 * exited within `graceMs`, its whole process group terminated. Killing only xvfb-run would
 * orphan its Xvfb and the recorder: the script's clean-up does not run on SIGTERM.
 */
const stop = async (r: Running, graceMs: number): Promise<void> => {
  if (r.proc.exitCode !== null) return
  r.proc.stdin.end()
  await Promise.race([r.proc.exited, Bun.sleep(graceMs)])
  if (r.proc.exitCode === null) {
    try {
      process.kill(-r.proc.pid, "SIGTERM")
    } catch {
      // the group is already gone
    }
    await r.proc.exited
  }
}

/**
 * Lock files of X servers that were killed outright (SIGKILL skips their clean-up): left
 * behind, they make the next `xvfb-run -a` start beside a dead display, where the recorder fails.
 */
const removeDeadXLocks = (pids: ReadonlySet<number>): void => {
  for (const name of readdirSync("/tmp").filter((n) => /^\.X\d+-lock$/.test(n))) {
    const pid = Number(readFileSync(join("/tmp", name), "latin1").trim())
    if (!pids.has(pid)) continue
    const display = name.slice(2, -5)
    rmSync(join("/tmp", name), { force: true })
    rmSync(join("/tmp", ".X11-unix", `X${display}`), { force: true })
  }
}

const recorders: Array<Running> = []
afterAll(async () => {
  // A test that failed half-way: stop what it left running, then whatever of it survived.
  for (const r of recorders) await stop(r, 3000)
  const killed = new Set<number>()
  for (const p of await survivors()) {
    const pid = Number(/\((\d+)\)$/.exec(p)![1])
    process.kill(pid, "SIGKILL")
    killed.add(pid)
  }
  removeDeadXLocks(killed)
})

/** `xvfb-run -a bun core record …` with DevTools on a free port, once it says it is recording. */
const startRecorder = async (args: ReadonlyArray<string>, extraEnv: Record<string, string> = {}): Promise<Recorder> => {
  if (!existsSync(XVFB_RUN)) throw new Error(`${XVFB_RUN} is missing: install the xvfb package (CI does); these tests never skip`)
  const port = await freePort()
  const proc = Bun.spawn([XVFB_RUN, "-a", "bun", "apps/cli/main.ts", "record", ...args, "--cdp-port", String(port)], {
    cwd: REPO,
    env: { ...cleanEnv(), ...extraEnv, [TAG.split("=")[0]!]: TAG.split("=")[1]! },
    // Its own process group, so `stop` reaches xvfb-run, Xvfb and the recorder at once.
    detached: true,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe"
  })
  const entry: Running = { proc, browser: null }
  recorders.push(entry)
  let stderr = ""
  const decoder = new TextDecoder()
  const reading = (async () => {
    for await (const chunk of proc.stderr) stderr += decoder.decode(chunk, { stream: true })
  })()
  const stdout = new Response(proc.stdout).text()
  const waitFor = async (pattern: RegExp) => {
    for (const until = Date.now() + 60_000; !pattern.test(stderr); ) {
      if (proc.exitCode !== null) throw new Error(`the recorder exited (${proc.exitCode}) before ${pattern}:\n${stderr}`)
      if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}; stderr:\n${stderr}`)
      await Bun.sleep(25)
    }
  }
  await waitFor(/record: then type one of these/)
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`)
  entry.browser = browser
  const page = browser.contexts()[0]!.pages()[0]!
  return {
    page,
    waitFor,
    send: (line) => {
      proc.stdin.write(`${line}\n`)
      proc.stdin.flush()
    },
    exit: async () => {
      const code = await proc.exited
      await reading
      await browser.close().catch(() => undefined)
      return { code, stdout: await stdout, stderr }
    }
  }
}

const taskIds = async () => new Set((await Effect.runPromise(loadSuites())).flatMap((s) => s.tasks.map((t) => t.id)))

/** The action without its episode-local element id, which is checked apart. */
const semantics = (a: any) => {
  const { target, ...rest } = a
  return target === undefined || target === null ? rest : { ...rest, target: { role: target.role, name: target.name } }
}

describe("bun core record", () => {
  test("a demonstration: typed search + Enter, a select, a field committed by a click, navigating clicks, undo, done", async () => {
    const out = join(tmp, "wishlist")
    const r = await startRecorder(["--task", TASK, "--site", "shop", "--out", out, "--demo-id", "wishlist-rec", "--json"])
    const { page } = r
    await page.getByRole("searchbox", { name: "Search products" }).fill("Northwind")
    await page.keyboard.press("Enter")
    await r.waitFor(/step 1: /)
    await page.getByRole("combobox", { name: "Sort by" }).selectOption("price-asc")
    await r.waitFor(/step 2: /)
    // No Enter: the click on Apply filters commits the field, and both must be recorded, in order.
    await page.getByRole("searchbox", { name: "Keywords" }).fill(PRODUCT)
    await page.getByRole("button", { name: "Apply filters" }).click()
    await r.waitFor(/step 4: /)
    await page.getByRole("link", { name: PRODUCT, exact: true }).first().click()
    await r.waitFor(/step 5: /)
    await page.getByRole("button", { name: "Add to wish list" }).click()
    await r.waitFor(/step 6: /)
    await page.getByRole("link", { name: /^Wish list \(\d+\)$/ }).click()
    await r.waitFor(/step 7: /)
    r.send("undo")
    await r.waitFor(/undone: click link "Wish list/)
    r.send("done")
    const result = await r.exit()
    expect(result.stderr).not.toContain("error:")
    expect(result.code).toBe(0)
    const file = join(out, "demo.json")
    expect(JSON.parse(result.stdout)).toEqual({ demo: file, steps: 7, demoId: "wishlist-rec", taskId: TASK })

    const demo = await Effect.runPromise(loadDemo(file, { tasks: await taskIds() }))
    expect(demo.recordedWith).toBe("recorder")
    expect(demo.demoId).toBe("wishlist-rec")
    expect(demo.taskId).toBe(TASK)
    expect(demo.steps.map((s) => semantics(s.action))).toEqual([
      { kind: "type", target: { role: "searchbox", name: "Search products" }, text: "Northwind", submit: true },
      { kind: "select", target: { role: "combobox", name: "Sort by" }, value: "price-asc" },
      { kind: "type", target: { role: "searchbox", name: "Keywords" }, text: PRODUCT, submit: false },
      { kind: "click", target: { role: "button", name: "Apply filters" } },
      { kind: "click", target: { role: "link", name: PRODUCT } },
      { kind: "click", target: { role: "button", name: "Add to wish list" } },
      { kind: "status", status: "complete" }
    ])
    const product = "/shop/product/northwind-everyday-t-shirt"
    expect(demo.steps.map((s) => [s.urlBefore, s.urlAfter])).toEqual([
      ["/shop/", "/shop/search?q=Northwind"],
      ["/shop/search?q=Northwind", "/shop/search?q=Northwind"],
      ["/shop/search?q=Northwind", "/shop/search?q=Northwind"],
      ["/shop/search?q=Northwind", "/shop/search?q=Northwind+Everyday+T-Shirt&category=&min=&max=&sort=price-asc"],
      ["/shop/search?q=Northwind+Everyday+T-Shirt&category=&min=&max=&sort=price-asc", product],
      [product, `${product}?added=wishlist`],
      // The undone click left the page on the wish list: the end is recorded where the person was.
      ["/shop/wishlist", "/shop/wishlist"]
    ])

    // Blobs: every hash names a file in the folder with those bytes.
    const json = JSON.parse(readFileSync(file, "utf8"))
    for (const step of json.steps) {
      for (const hash of Object.values(step.observation) as Array<string | null>) {
        if (hash === null) continue
        const bytes = readFileSync(join(out, json.blobs[hash]))
        expect(sha256(new Uint8Array(bytes))).toBe(hash)
      }
    }
    // Inputs the recorder waited out get a full observation; the typed field (overtaken by the click) at least its elements.
    for (const [i, step] of demo.steps.entries()) {
      expect(step.observation.elements).not.toBeNull()
      if (i !== 2) {
        expect(step.observation.screenshot).not.toBeNull()
        expect(step.observation.aria).not.toBeNull()
      }
    }
    expect(json.blobs[demo.steps[0]!.observation.screenshot!]).toEndWith(".png")

    // Same labelling as the environment: each target is, by id, role and name, in the observation before it.
    const elementsAfter = (i: number) =>
      JSON.parse(readFileSync(join(out, json.blobs[demo.steps[i]!.observation.elements!]), "utf8")).elements as Array<any>
    for (let i = 1; i < 6; i++) {
      const target = (demo.steps[i]!.action as any).target
      expect(target.elementId).toMatch(/^e\d+$/)
      expect(elementsAfter(i - 1).find((e) => e.id === target.elementId)).toMatchObject({ role: target.role, name: target.name })
    }
    expect(elementsAfter(2).find((e) => e.name === "Keywords")?.value).toBe(PRODUCT)
    // The page as it opened is the demo's `initial` (version 2): the first step's target is in it, by id, role and name.
    expect(json.version).toBe(2)
    expect(demo.initial?.screenshot).not.toBeNull()
    const first = (demo.steps[0]!.action as any).target
    const opened = JSON.parse(readFileSync(join(out, json.blobs[demo.initial!.elements!]), "utf8")).elements as Array<any>
    expect(opened.find((e) => e.id === first.elementId)).toMatchObject({ role: first.role, name: first.name })

    const ingested = await core(["ingest", out, "--store", "embedded", "--data-dir", join(tmp, "data")])
    expect(ingested.stderr).not.toContain("error:")
    expect(ingested.code).toBe(0)
    expect(ingested.stdout.trim()).toBe("1 demo files: 1 ingested, 0 unchanged, 0 rejected")

    // The folder is a demo now: recording into it again needs --force.
    const again = await core(["record", "--task", TASK, "--out", out])
    expectOneLineError(again, expect)
    expect(again.stderr).toContain("--force")
  }, 180_000)

  test("the recorder's variable's value typed into a search box is recorded by reference and is in no file of the demo", async () => {
    const out = join(tmp, "secret")
    const secret = `vault-${crypto.randomUUID().slice(0, 8)}`
    const r = await startRecorder(["--task", TASK, "--out", out, "--secret-env", "SHOP_TEST_RECORD_KEY", "--json"], {
      SHOP_TEST_RECORD_KEY: secret
    })
    // No Enter: the click on Search commits the field, and the type step is observed as the click found the page.
    await r.page.getByRole("searchbox", { name: "Search products" }).fill(secret)
    await r.page.getByRole("button", { name: "Search", exact: true }).click()
    await r.waitFor(/step 2: /)
    r.send("done")
    const result = await r.exit()
    expect(result.code).toBe(0)
    expect(result.stdout + result.stderr).not.toContain(secret)
    const demo = JSON.parse(readFileSync(join(out, "demo.json"), "utf8"))
    expect(demo.steps.map((s: any) => semantics(s.action))).toEqual([
      { kind: "type", target: { role: "searchbox", name: "Search products" }, text: "", submit: false, secretEnv: "SHOP_TEST_RECORD_KEY" },
      { kind: "click", target: { role: "button", name: "Search" } },
      { kind: "status", status: "complete" }
    ])
    // The search did run: the results page echoes the query, masked.
    const aria = readFileSync(join(out, demo.blobs[demo.steps[1].observation.aria]), "utf8")
    expect(aria).toContain(`Results for “${"•".repeat(secret.length)}”`)
    const everything = readdirSync(out, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), "latin1"))
      .join("\n")
    expect(everything.includes(secret)).toBe(false)
  }, 120_000)

  test("quit discards: nothing written, exit 1 with one error line", async () => {
    const out = join(tmp, "quit")
    const r = await startRecorder(["--task", TASK, "--out", out])
    await r.page.getByRole("link", { name: /^Account$/ }).click()
    await r.waitFor(/step 1: click link "Account"/)
    r.send("quit")
    const result = await r.exit()
    expectOneLineError(result, expect)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("error: recording discarded (quit): nothing written")
    expect(result.stdout).toBe("")
    expect(existsSync(out)).toBe(false)
  }, 120_000)

  test("closing the browser window discards too", async () => {
    const out = join(tmp, "closed")
    const r = await startRecorder(["--task", TASK, "--out", out])
    await r.page.close()
    const result = await r.exit()
    expectOneLineError(result, expect)
    expect(result.stderr).toContain("browser window was closed")
    expect(existsSync(out)).toBe(false)
  }, 120_000)

  test("a recorder stopped half way leaves no Xvfb, recorder or Chromium behind", async () => {
    const r = await startRecorder(["--task", TASK, "--out", join(tmp, "stopped")])
    expect(tagged().some((p) => p.startsWith("Xvfb "))).toBe(true)
    // No grace: the path a hung recorder takes.
    await stop(recorders.at(-1)!, 0)
    await r.exit()
    expect(await survivors()).toEqual([])
  }, 120_000)

  test("every recorder these tests started has exited with its Xvfb", async () => {
    expect(await survivors()).toEqual([])
  }, 30_000)

  test("no display: one line saying how to get one", async () => {
    const r = await core(["record", "--task", TASK, "--out", join(tmp, "nodisplay")], { DISPLAY: "", WAYLAND_DISPLAY: "" })
    expectOneLineError(r, expect)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("xvfb-run -a")
    expect(existsSync(join(tmp, "nodisplay"))).toBe(false)
  })

  test("bad usage: unknown task, site mismatch, no task", async () => {
    const unknown = await core(["record", "--task", "shop-nope-1"])
    expectOneLineError(unknown, expect)
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("unknown task 'shop-nope-1'")
    expect(unknown.stderr).toContain("bun core tasks list")
    const mismatch = await core(["record", "--task", TASK, "--site", "forum"])
    expectOneLineError(mismatch, expect)
    expect(mismatch.stderr).toContain(`task '${TASK}' is on site 'shop', not 'forum'`)
    const none = await core(["record"])
    expectOneLineError(none, expect)
    expect(none.stderr).toContain("--task")
  })
})
