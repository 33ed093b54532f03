/**
 * The mediawiki pack's commands, end to end without a browser: start.ts brings up a real
 * MediaWiki (Debian's package, PHP's built-in server, SQLite) that answers 200, evaluate.ts
 * fails an undone task and passes a right answer on the untouched seed, passes an edit made
 * through the wiki's own API, reset.ts restores the seed in place, stop.ts leaves no process
 * behind. Skipped, in one line, where Debian's packages are not installed.
 */
import { afterAll, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { missingPackages, phpServing, WIKI_PASSWORD, WIKI_USER } from "../lib.ts"

const PACK = join(import.meta.dir, "..")
const missing = missingPackages()
if (missing.length > 0) console.log(`skipping the mediawiki pack test: apt-get install ${missing.join(" ")}`)

/** The harness's minimal environment; evaluate's retry window shortened where nothing changes. */
const env = (waitMs: string): Record<string, string> => {
  const out: Record<string, string> = { CORE_APP_INSTANCE_TAG: "pack-test", CORE_MW_EVAL_WAIT_MS: waitMs }
  for (const k of ["PATH", "HOME", "LANG", "TMPDIR"]) if (process.env[k] !== undefined) out[k] = process.env[k]!
  return out
}

const run = async (argv: ReadonlyArray<string>, waitMs = "0") => {
  const proc = Bun.spawn([...argv], { cwd: PACK, env: env(waitMs), stdout: "pipe", stderr: "pipe", stdin: "ignore" })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, out: (stdout + stderr).trim() }
}

const freePort = (): number => {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: () => undefined } })
  const port = s.port
  s.stop(true)
  return port
}

/** Appends a line to a page through MediaWiki's action API, logged in as the pack's user. */
const appendViaApi = async (base: string, title: string, line: string): Promise<void> => {
  const jar = new Map<string, string>()
  const api = async (params: Record<string, string>, post = false) => {
    const body = new URLSearchParams({ format: "json", ...params })
    const res = await fetch(post ? `${base}api.php` : `${base}api.php?${body}`, {
      method: post ? "POST" : "GET",
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(post ? { "content-type": "application/x-www-form-urlencoded" } : {})
      },
      body: post ? body : undefined
    })
    for (const c of res.headers.getSetCookie()) {
      const [pair = ""] = c.split(";")
      const eq = pair.indexOf("=")
      jar.set(pair.slice(0, eq), pair.slice(eq + 1))
    }
    return (await res.json()) as Record<string, any>
  }
  const loginToken = (await api({ action: "query", meta: "tokens", type: "login" })).query.tokens.logintoken
  const login = await api({ action: "login", lgname: WIKI_USER, lgpassword: WIKI_PASSWORD, lgtoken: loginToken }, true)
  expect(login.login.result).toBe("Success")
  const csrf = (await api({ action: "query", meta: "tokens" })).query.tokens.csrftoken
  const edit = await api({ action: "edit", title, appendtext: `\n${line}`, token: csrf }, true)
  expect(edit.edit?.result ?? JSON.stringify(edit)).toBe("Success")
}

let started: { kill(signal?: number | NodeJS.Signals): void; readonly exited: Promise<number> } | undefined
let instance: string | undefined

afterAll(async () => {
  if (instance) await run(["bun", "stop.ts", instance])
  started?.kill("SIGKILL")
})

test.skipIf(missing.length > 0)(
  "start, evaluate, reset and stop one instance",
  async () => {
    const port = freePort()
    const proc = Bun.spawn(["bun", "start.ts", String(port)], {
      cwd: PACK,
      env: env("0"),
      stdout: "pipe",
      stderr: "inherit",
      stdin: "ignore"
    })
    started = proc
    const reader = proc.stdout.getReader()
    let buf = ""
    while (!/^INSTANCE=.*$/m.test(buf)) {
      const { value, done } = await reader.read()
      if (done) break
      buf += new TextDecoder().decode(value)
    }
    reader.releaseLock()
    const base = `http://127.0.0.1:${port}/`
    expect(buf).toContain(`URL=${base}`)
    instance = /^INSTANCE=(.*)$/m.exec(buf)![1]!
    expect(existsSync(join(instance, "data", "wiki.sqlite"))).toBe(true)

    const res = await fetch(`${base}index.php/Tea_Room`)
    expect(res.status).toBe(200)
    expect(await res.text()).toContain("Cream tea for two")

    // Untouched seed: an edit task is not done, an answer task passes with the right answer only.
    const undone = await run(["bun", "evaluate.ts", instance, "t05-append-workshop-log", ""])
    expect(undone.code).toBe(1)
    expect(undone.out).toContain("nothing was appended")
    expect((await run(["bun", "evaluate.ts", instance, "t02-curlew-pressure", " 160 PSI. "])).code).toBe(0)
    expect((await run(["bun", "evaluate.ts", instance, "t02-curlew-pressure", "180 psi"])).code).toBe(1)
    expect((await run(["bun", "evaluate.ts", instance, "h02-chief-driver-village", "Hatherby"])).code).toBe(0)
    expect((await run(["bun", "evaluate.ts", instance, "no-such-task", ""])).code).toBe(2)
    expect((await run(["bun", "evaluate.ts", "/etc", "t02-curlew-pressure", "160"])).code).toBe(2)
    // The page the browser viewed last is read off PHP's request log.
    expect((await run(["bun", "evaluate.ts", instance, "t01-open-owlcote", ""])).code).toBe(1)
    expect((await fetch(`${base}index.php/Owlcote_Station`)).status).toBe(200)
    expect((await run(["bun", "evaluate.ts", instance, "t01-open-owlcote", ""])).code).toBe(0)

    // An edit saved by the wiki itself (its API, as the edit form would)…
    await appendViaApi(base, "Workshop Log", "* 2025-03-14 Replaced Curlew's firebox door hinge")
    const done = await run(["bun", "evaluate.ts", instance, "t05-append-workshop-log", ""], "1500")
    expect(done.out).toStartWith("pass")
    expect(done.code).toBe(0)
    // …is the seed's again after reset, and the server still answers on the same port.
    expect((await run(["bun", "reset.ts", instance])).code).toBe(0)
    expect((await run(["bun", "evaluate.ts", instance, "t05-append-workshop-log", ""])).code).toBe(1)
    expect((await fetch(`${base}index.php/Workshop_Log`)).status).toBe(200)

    expect((await run(["bun", "stop.ts", "/tmp"])).code).toBe(2)
    const stopped = await run(["bun", "stop.ts", instance])
    expect(stopped.code).toBe(0)
    expect(await proc.exited).toBe(0)
    expect(phpServing(instance)).toEqual([])
    expect(existsSync(instance)).toBe(false)
    // Idempotent.
    expect((await run(["bun", "stop.ts", instance])).code).toBe(0)
  },
  // The first start on a machine installs the template (~10 s, more on a loaded one).
  120_000
)

test("the last page viewed is read off PHP's request log, a revalidated page (304) included", async () => {
  const { lastPageView } = await import("../wiki.ts")
  const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import("node:fs")
  const { tmpdir } = await import("node:os")
  const dir = mkdtempSync(join(tmpdir(), "core-mw-log-"))
  try {
    mkdirSync(join(dir, ".core"))
    const line = (code: number, path: string) => `[Sun Dec  6 12:00:00 2026] 127.0.0.1:5000 [${code}]: GET ${path}`
    const log = (lines: ReadonlyArray<string>) => writeFileSync(join(dir, ".core", "server.log"), `${lines.join("\n")}\n`)
    log([
      line(200, "/index.php/Owlcote_Station"),
      line(200, "/index.php/Mabel_Orrin"),
      line(200, "/index.php?search=Owlcote&title=Special%3ASearch")
    ])
    expect(lastPageView(dir)).toBe("Mabel Orrin")
    // The same page opened again from the search results: the browser revalidated it.
    log([line(200, "/index.php/Owlcote_Station"), line(200, "/index.php/Mabel_Orrin"), line(304, "/index.php/Owlcote_Station")])
    expect(lastPageView(dir)).toBe("Owlcote Station")
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
