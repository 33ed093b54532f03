/**
 * The console end to end: the real `bun core ui` over a copy of the replay fixture
 * (tests/fixtures/replay-run, run run-mx9cfcfn-0a9e49), driven in Debian's headless Chromium.
 * Every page renders without a script error or a CSP violation; what the pages show is what
 * the CLI reports on the same store (`graph show`, `audit trajectory`, `replay --with-lf`);
 * the arrow keys walk a trajectory's steps; an append to the log reaches an open page without
 * a reload; hostile text in the log stays text. Only the printed URL opens it: its token
 * becomes a cookie, no page holds the token, and without it (another browser, another site,
 * another Unix user) every request is a 401.
 * With CORE_SCREENSHOTS=1 it also writes docs/images/console-<page>.png.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser, Page, Response } from "playwright-core"
import { core } from "./support/cli.ts"
import type { PageWatch, RunningUi } from "./support/console.ts"
import { appendHostile, IMG, launchChromium, SCRIPT, screenshot, startUi, watchPage } from "./support/console.ts"

const RUN = "run-mx9cfcfn-0a9e49"
const FIXTURE = join(import.meta.dir, "fixtures", "replay-run")

let dir = ""
let ui: RunningUi
let browser: Browser
let page: Page
let watch: PageWatch
/** The printed URL as the browser opened it: every later page of `page` rides on its cookie. */
let landed: Response | null

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "core-console-browser-"))
  cpSync(FIXTURE, dir, { recursive: true })
  ;[ui, browser] = await Promise.all([startUi(dir), launchChromium()])
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  watch = await watchPage(page)
  landed = await page.goto(ui.open, { waitUntil: "load" })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await ui?.stop()
  if (dir !== "") rmSync(dir, { recursive: true, force: true })
})

/** `bun core …` on the test's store, parsed as the JSON it prints. */
const cliJson = async (args: ReadonlyArray<string>): Promise<any> => {
  const r = await core([...args, "--json", "--store", "embedded", "--data-dir", dir])
  if (r.code !== 0) throw new Error(`bun core ${args.join(" ")} exited ${r.code}: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

/** Opens a console path and fails on anything but a clean 200 page. */
const visit = async (path: string): Promise<void> => {
  const response = await page.goto(`${ui.url}${path}`, { waitUntil: "load" })
  expect({ path, status: response?.status() }).toEqual({ path, status: 200 })
  expect(watch.take()).toEqual([])
}

/** The distinct ids the page's links name under `/runs/RUN/<kind>/`. */
const linked = (kind: string): Promise<Array<string>> =>
  page.$$eval(
    "main a[href]",
    (links, prefix) => [
      ...new Set(links.flatMap((a) => a.getAttribute("href")!.match(new RegExp(`^${prefix}([A-Za-z0-9_-]+)$`))?.[1] ?? []))
    ],
    `/runs/${RUN}/${kind}/`
  )

const text = (selector: string): Promise<string> => page.locator(selector).innerText()

/** A screenshot in the fixture's blob store. */
const PNG = "a9328762b34abbd5eb90199600628c16d1327ebedbefe547e41001c27cd6987f"

test("the printed URL lands on the console and leaves an HttpOnly SameSite=Strict cookie; a browser without it gets 401", async () => {
  expect(landed?.status()).toBe(200)
  expect(landed?.request().redirectedFrom()?.url()).toBe(ui.open)
  // The token left the address bar, and the page's script cannot read the cookie.
  expect(page.url()).toBe(`${ui.url}/`)
  expect(await page.evaluate(() => document.cookie)).toBe("")
  const cookies = await page.context().cookies(ui.url)
  expect(cookies.map((c) => [`${c.name}=${c.value}`, c.httpOnly, c.sameSite])).toEqual([[ui.cookie, true, "Strict"]])
  expect(await page.content()).not.toContain(ui.token)
  expect(watch.take()).toEqual([])

  const stranger = await browser.newPage()
  try {
    for (const path of [`/runs/${RUN}`, `/blob/${PNG}`, `/?token=${"0".repeat(64)}`]) {
      const r = await stranger.goto(`${ui.url}${path}`)
      expect([path, r?.status()]).toEqual([path, 401])
    }
    expect(await stranger.locator("body").innerText()).toMatch(/^unauthorized: /)
  } finally {
    await stranger.close()
  }
}, 30_000)

/** Why the other-user case cannot run here, or null when it can. */
const nobodyUnavailable = (): string | null => {
  if (process.getuid?.() !== 0) return "runuser needs root"
  for (const tool of ["runuser", "curl", "getent"]) if (Bun.which(tool) === null) return `no ${tool} on this machine`
  if (Bun.spawnSync(["getent", "passwd", "nobody"]).exitCode !== 0) return "no user nobody"
  return null
}
const whyNot = nobodyUnavailable()

;(whyNot === null ? test : test.skip)(
  `another Unix user gets a 401 for a page and a blob${whyNot === null ? "" : ` (skipped: ${whyNot})`}`,
  async () => {
    const asNobody = async (url: string): Promise<string> => {
      const proc = Bun.spawn(["runuser", "-u", "nobody", "--", "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", url], {
        stdout: "pipe",
        stderr: "pipe"
      })
      const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      return out.trim() || `curl failed: ${err}`
    }
    expect(Bun.spawnSync(["runuser", "-u", "nobody", "--", "id", "-u"]).stdout.toString().trim()).toBe("65534")
    for (const path of ["/", `/runs/${RUN}`, `/blob/${PNG}`, "/assets/console.js", `/live?run=${RUN}`])
      expect([path, await asNobody(`${ui.url}${path}`)]).toEqual([path, "401"])
    // The same user with the printed URL is let in: the 401 is the missing token, not the user.
    expect(await asNobody(ui.open)).toBe("303")
  },
  30_000
)

/** Filled in by the first test, for the others. */
const found = { tasks: [] as Array<string>, trajectories: [] as Array<string> }

test("every page renders, and each task's drawn graph is the one `graph show` reports", async () => {
  await visit("/")
  await screenshot(page, "runs")
  await visit(`/compare?a=${RUN}&b=${RUN}`)
  await visit(`/runs/${RUN}`)
  await screenshot(page, "run")
  found.tasks = await linked("tasks")
  found.trajectories = await linked("trajectories")
  expect(found.tasks.length).toBe(3)
  expect(found.trajectories.length).toBe(10)
  const demos = new Set<string>()
  const lfs = new Set<string>()
  for (const task of found.tasks) {
    await visit(`/runs/${RUN}/tasks/${task}`)
    for (const d of await linked("demos")) demos.add(d)
    for (const lf of await linked("lfs")) lfs.add(lf)
    const drawn = await page.$$eval("svg [data-node-id]", (nodes) => nodes.map((n) => n.getAttribute("data-node-id")!))
    const graph = await cliJson(["graph", "show", task, "--run", RUN])
    expect(drawn.length).toBe(new Set(drawn).size)
    expect(drawn.toSorted()).toEqual(graph.nodes.map((n: { node_id: string }) => n.node_id).toSorted())
    if (task === "forum-open-board-1") await screenshot(page, "task")
  }
  expect(demos.size).toBeGreaterThan(0)
  expect(lfs.size).toBeGreaterThan(0)
  for (const demo of demos) {
    await visit(`/runs/${RUN}/demos/${demo}`)
    // The fixture's demos kept their screens (its rollouts did not): the step view with a screenshot.
    if (demo === "forum-open-board-1-script" && process.env.CORE_SCREENSHOTS === "1") {
      // Its first step was recorded without the page it acted on; the second shows one.
      await page.keyboard.press("ArrowRight")
      await screenshot(page, "demo")
    }
  }
  for (const lf of lfs) await visit(`/runs/${RUN}/lfs/${lf}`)
  await visit(`/runs/${RUN}/datasets`)
  // The watch itself can fail a page: an inline script is refused by the CSP, and reported twice.
  const reported = Promise.all([
    page.waitForEvent("console", (m) => m.text().includes("Content Security Policy")),
    page.waitForEvent("console", (m) => m.text().startsWith("CSP violation: script-src"))
  ])
  await page.evaluate(() => document.body.append(Object.assign(document.createElement("script"), { textContent: "void 0" })))
  await reported
  expect(watch.take()).toHaveLength(2)
}, 90_000)

interface AuditLf {
  readonly lf_id: string
  readonly verdict: { readonly satisfied_at: number; readonly error: string | null } | null
}

test("each trajectory page's evidence is `audit trajectory`'s, and the dataset shows the records it fed", async () => {
  expect(found.trajectories.length).toBeGreaterThan(0)
  let fed: { trajectory: string; record: string } | undefined
  for (const id of found.trajectories) {
    const cli = cliJson(["audit", "trajectory", id, "--run", RUN])
    await visit(`/runs/${RUN}/trajectories/${id}`)
    const audit = await cli
    expect(JSON.parse((await page.locator("script#audit").textContent()) ?? "null")).toEqual(audit)
    const strip = await page.$$eval(".evidence [data-lf-id][data-satisfied-at]", (items) =>
      items.map((li): readonly [string, number | undefined] => [
        li.getAttribute("data-lf-id")!,
        Number(li.getAttribute("data-satisfied-at"))
      ])
    )
    expect(strip.length).toBeGreaterThan(0)
    const satisfiedAt = new Map((audit.label_functions as ReadonlyArray<AuditLf>).map((lf) => [lf.lf_id, lf.verdict?.satisfied_at ?? -1]))
    expect(strip).toEqual(strip.map(([lf]) => [lf, satisfiedAt.get(lf)] as const))
    if (audit.path.matched) expect(strip.map(([lf]) => lf)).toEqual(audit.path.steps.map((s: { lf_id: string }) => s.lf_id))
    if (id === "r1-s0-forum-open-board-1") await screenshot(page, "trajectory")
    const record: string | undefined = audit.dataset_records[0]?.record_id
    if (fed === undefined && record !== undefined) fed = { trajectory: id, record }
  }
  // As the trajectory page links it: the records it fed, one of them opened.
  expect(fed).toBeDefined()
  await visit(`/runs/${RUN}/datasets?trajectory=${fed!.trajectory}&record=${fed!.record}`)
  expect(await text("main")).toContain(`Record ${fed!.record}`)
  await screenshot(page, "dataset")
}, 90_000)

test("the arrow keys walk a trajectory's steps, and the hash follows", async () => {
  await visit(`/runs/${RUN}/trajectories/r1-s0-forum-open-board-1`)
  const state = () =>
    page.evaluate(() => ({ current: [...document.querySelectorAll(".step.current")].map((s) => s.id), hash: location.hash }))
  expect(await page.locator(".step").count()).toBeGreaterThan(2)
  expect(await state()).toEqual({ current: ["step-0"], hash: "" })
  await page.keyboard.press("ArrowLeft")
  expect(await state()).toEqual({ current: ["step-0"], hash: "" })
  await page.keyboard.press("ArrowRight")
  expect(await state()).toEqual({ current: ["step-1"], hash: "#step-1" })
  await page.keyboard.press("ArrowRight")
  expect(await state()).toEqual({ current: ["step-2"], hash: "#step-2" })
  await page.keyboard.press("ArrowLeft")
  expect(await state()).toEqual({ current: ["step-1"], hash: "#step-1" })
  // The hash is a link to the step: reloaded, the page opens on it.
  await page.reload()
  expect(await state()).toEqual({ current: ["step-1"], hash: "#step-1" })
  expect(watch.take()).toEqual([])
}, 30_000)

test("the what-if form holds no token and flips as many verdicts as `replay --with-lf`; no other page or site can post it", async () => {
  // A label function on the path a passing trajectory took: never holding, it must flip verdicts.
  const passing = await cliJson(["audit", "trajectory", "r1-s0-forum-open-board-1", "--run", RUN])
  expect(passing.label).toBe("pass")
  const lf: string = passing.path.steps[0].lf_id
  const never = "function labelFunction(t) { return -1 }"
  const file = join(dir, "never.js")
  writeFileSync(file, never)
  const replay = cliJson(["replay", RUN, "--with-lf", `${lf}=${file}`])

  await visit(`/runs/${RUN}/lfs/${lf}`)
  await screenshot(page, "label-function")
  // The cookie is what the post rides on: the page has no token to leak.
  expect(await page.content()).not.toContain(ui.token)
  expect(await page.locator('form[action$="/what-if"] input[name="token"]').count()).toBe(0)
  await page.locator("#what-if-code").fill(never)
  const [posted] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith(`/runs/${RUN}/what-if`), { timeout: 60_000 }),
    page.locator('form[action$="/what-if"] button[type="submit"]').click()
  ])
  expect(posted.status()).toBe(200)
  const count = Number(await page.locator("[data-flip-count]").getAttribute("data-flip-count", { timeout: 60_000 }))
  expect(watch.take()).toEqual([])
  const cli = await replay
  expect(cli.flips.length).toBeGreaterThan(0)
  expect(count).toBe(cli.flips.length)
  const flipped = await page.$$eval("main table tbody tr td:first-child a", (links) => links.map((a) => a.textContent))
  expect(flipped.toSorted()).toEqual(cli.flips.map((f: { trajectoryId: string }) => f.trajectoryId).toSorted())
  await screenshot(page, "what-if")

  // Same origin, no cookie: the console's 401 page posting to the console.
  const stranger = await browser.newPage()
  try {
    await stranger.goto(`${ui.url}/`)
    const status = await stranger.evaluate(
      async ({ run, lf }) => (await fetch(`/runs/${run}/what-if`, { method: "POST", body: new URLSearchParams({ lf, code: "x" }) })).status,
      { run: RUN, lf }
    )
    expect(status).toBe(401)
  } finally {
    await stranger.close()
  }
  // Another port of 127.0.0.1 is the same site, so the cookie goes along: the Origin check refuses it.
  expect(await foreignFormStatus(lf, "127.0.0.1")).toBe(403)
  // localhost is another site than 127.0.0.1: a SameSite=Strict cookie does not go along.
  expect(await foreignFormStatus(lf, "localhost")).toBe(401)
  watch.take()
}, 120_000)

/**
 * A page served at `hostname` on another port posting the what-if form, like the console's own
 * pages under `no-referrer` (so Chromium sends `Origin: null`): the status it gets.
 */
const foreignFormStatus = async (lf: string, hostname: string): Promise<number> => {
  const form = `<!doctype html><meta name="referrer" content="no-referrer">
<form method="post" action="${ui.url}/runs/${RUN}/what-if"><input name="lf" value="${lf}">
<input name="code" value="function labelFunction(t) { return 0 }"><button type="submit">go</button></form>`
  const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(form, { headers: { "content-type": "text/html" } }) })
  try {
    await page.goto(`http://${hostname}:${other.port}/`)
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      // Chromium logs the refusal as a failed resource: wait for it, so no later page is blamed for it.
      page.waitForEvent("console", { predicate: (m) => /status of 40[13]/.test(m.text()), timeout: 10_000 }).catch(() => undefined),
      page.locator("button[type=submit]").click()
    ])
    return response.status()
  } finally {
    other.stop(true)
  }
}

test("an append reaches the open run page without a reload, and hostile text in it stays text", async () => {
  await visit(`/runs/${RUN}`)
  const status = page.locator("[data-live-status]")
  // Appended before the page follows the log, the event would not be news to it.
  await page.waitForFunction(() => document.querySelector("[data-live-status]")?.textContent?.includes("following the log"))
  await page.evaluate(() => {
    ;(window as { notReloaded?: boolean }).notReloaded = true
  })
  const hostile = await appendHostile(dir, RUN, "r1-s0-forum-open-board-1")
  const link = page.locator(`main a[href="/runs/${RUN}/trajectories/${hostile.trajectoryId}"]`)
  await link.waitFor({ timeout: 30_000 })
  expect(await status.innerText()).toMatch(/^live — updated /)
  expect(await page.evaluate(() => (window as { notReloaded?: boolean }).notReloaded)).toBe(true)
  expect(await text("main")).toContain(SCRIPT)

  for (const path of [`/runs/${RUN}/trajectories/${hostile.trajectoryId}`, `/runs/${RUN}/tasks/${hostile.taskId}`, `/runs/${RUN}`]) {
    await visit(path)
    const shown = await text("main")
    expect(shown).toContain(SCRIPT)
    if (path.includes("/trajectories/")) expect(shown).toContain(IMG)
    // Neither became an element: no image with src "x", no script but the console's own and the audit's data.
    expect(await page.locator('img[src="x"]').count()).toBe(0)
    expect(await page.$$eval("script", (s) => s.map((e) => e.getAttribute("src") ?? e.getAttribute("type")))).toEqual(
      path.includes("/trajectories/") ? ["/assets/console.js", "application/json"] : ["/assets/console.js"]
    )
  }
  expect(watch.dialogs).toEqual([])
  expect(watch.take()).toEqual([])
}, 60_000)
