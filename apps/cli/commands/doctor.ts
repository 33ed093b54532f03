/**
 * `bun core doctor [--json]`: is this machine ready to run CORE, and what will it use?
 * Every check reports ok / warn / fail with one line of detail; only a failed *required*
 * check (Bun, the config, a usable event store) makes the exit code non-zero, because
 * Chromium, chromedriver, PostgreSQL and the Android tools (adb, Appium, its UiAutomator2
 * driver) are needed only by some commands.
 */
import { Effect } from "effect"
import { SQL } from "bun"
import { accessSync, constants, existsSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { loadConfig, natsCredentials, programVersion, redactUrl, runProgram, storeSettings } from "@core/config"
import type { LoadedConfig } from "@core/config"
import { chooseStore, displayNatsUrl, probeNats } from "@core/eventstore"
import type { NatsCredentials } from "@core/eventstore"
import { HEADLESS_SHELL } from "@core/env-web"
import { CliError, oneLine } from "../Cli.ts"
import type { Command, ParsedArgs } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { commonConfigFlags } from "../ConfigFlags.ts"
import { LOG_SUBJECTS, logWrites } from "@core/eventstore"

type Status = "ok" | "warn" | "fail"

interface Check {
  readonly name: string
  readonly status: Status
  readonly detail: string
  readonly required: boolean
}

const check = (name: string, status: Status, detail: string, required = false): Check => ({ name, status, detail, required })

/** "1.4.5" → [1, 4, 5]; anything unparseable compares as 0. */
const versionParts = (v: string): ReadonlyArray<number> => (v.match(/\d+(\.\d+)*/)?.[0] ?? "0").split(".").map(Number)
const atLeast = (v: string, min: ReadonlyArray<number>): boolean => {
  const parts = versionParts(v)
  for (let i = 0; i < min.length; i++) {
    const a = parts[i] ?? 0
    const b = min[i] ?? 0
    if (a !== b) return a > b
  }
  return true
}

const bunCheck = (): Check =>
  atLeast(Bun.version, [1, 4])
    ? check("bun", "ok", `Bun ${Bun.version} (${Bun.revision.slice(0, 7)})`, true)
    : check("bun", "fail", `Bun ${Bun.version} is older than 1.4, which CORE needs`, true)

/**
 * A broken config fails its check, and the other checks still run — on the config without
 * the file, or on plain defaults — so one typo does not hide every other problem.
 */
const configCheck = (args: ParsedArgs): Effect.Effect<{ check: Check; config: LoadedConfig }> =>
  Effect.gen(function* () {
    const full = yield* Effect.result(loadConfig({ flags: args.flags }))
    if (full._tag === "Success") {
      const c = full.success
      return {
        check: check("config", "ok", c.file.found ? `loaded ${c.file.path}` : `no ${c.file.path}: defaults, environment and flags`, true),
        config: c
      }
    }
    const fallback = yield* loadConfig({ flags: args.flags, configPath: null }).pipe(
      Effect.catch(() => loadConfig({ env: {}, configPath: null })),
      Effect.orDie
    )
    return { check: check("config", "fail", `${full.failure.message} (other checks use defaults)`, true), config: fallback }
  })

/** The configured NATS credentials, or the line saying which named variable is unset. */
const credentialsOf = (config: LoadedConfig): NatsCredentials | string => {
  const found = natsCredentials(config)
  return "missing" in found ? found.missing : found
}

const natsCheck = (config: LoadedConfig): Effect.Effect<Check> => {
  const credentials = credentialsOf(config)
  if (typeof credentials === "string") return Effect.succeed(check("nats", "warn", credentials))
  return Effect.map(probeNats(config.values["nats.url"], undefined, credentials), (p) => {
    const server = p.version === null ? "" : `nats-server ${p.version} `
    const url = displayNatsUrl(p.url)
    if (!p.reachable) return check("nats", "warn", `not reachable at ${url}: ${p.error ?? "no answer"}`)
    if (!p.jetstream) return check("nats", "warn", `${server}reachable at ${url} but JetStream is not enabled (start it with -js)`)
    if (p.version !== null && !atLeast(p.version, [2, 9]))
      return check("nats", "warn", `${server}at ${url} is older than 2.9, which CORE needs`)
    return check("nats", "ok", `${server}reachable at ${url}, JetStream enabled`)
  })
}

/**
 * Whether a client without credentials gets in. The log is the training data and its
 * provenance: anyone who can reach a server that admits anonymous clients can read it and
 * append to it. A warning, not a failure — a server on the loopback of a one-person
 * machine is a fair choice.
 */
const natsAuthCheck = (config: LoadedConfig): Effect.Effect<Check> =>
  Effect.map(probeNats(config.values["nats.url"]), (p) => {
    const url = displayNatsUrl(p.url)
    if (p.reachable) {
      return check(
        "nats auth",
        "warn",
        `${url} accepts anonymous clients: anyone who can reach it can read and append to the log (enable authorization and set nats.userEnv/nats.passwordEnv, nats.tokenEnv or nats.credsFileEnv)`
      )
    }
    if (/authori[sz]ation|authentication/i.test(p.error ?? "")) return check("nats auth", "ok", `${url} refuses anonymous clients`)
    return check("nats auth", "warn", `not checked: ${url} is not reachable`)
  })

/**
 * Whether the configured credentials may append to the log. A driver's must; a worker's
 * should not, or a worker's machine is trusted with the log and not only with its episodes
 * (docs/scaling.md, "Worker credentials"). Which of the two this machine is, doctor cannot
 * tell, so it says what the credentials are good for.
 */
const natsLogWritesCheck = (config: LoadedConfig): Effect.Effect<Check> => {
  const credentials = credentialsOf(config)
  if (typeof credentials === "string") return Effect.succeed(check("nats log writes", "warn", `not checked: ${credentials}`))
  const who =
    credentials.user !== undefined
      ? `user ${credentials.user}`
      : credentials.token !== undefined
        ? "the token"
        : credentials.credsFile !== undefined
          ? "the creds file"
          : "a client without credentials"
  const url = config.values["nats.url"]
  return Effect.promise(() => logWrites(url, credentials)).pipe(
    Effect.map((r) => {
      if (r.kind === "refused")
        return check(
          "nats log writes",
          "ok",
          `${who} may not append to the log (${LOG_SUBJECTS}): worker credentials, enough for bun core worker, not for a driver (bun core run)`
        )
      if (r.kind === "allowed")
        return check(
          "nats log writes",
          "ok",
          `${who} may append to the log (${LOG_SUBJECTS}), as a driver must; a worker run with these could write the log too: give workers their own (docs/examples/nats-workers.conf, docs/scaling.md)`
        )
      return check("nats log writes", "warn", `not checked: ${displayNatsUrl(url)}: ${r.reason}`)
    })
  )
}

/** The nearest existing directory at or above `dir` must be writable for the embedded store to be created. */
const writableDir = (dir: string): string | null => {
  let d = resolve(dir)
  while (!existsSync(d) && dirname(d) !== d) d = dirname(d)
  try {
    accessSync(d, constants.W_OK)
    return null
  } catch {
    return d
  }
}

const storeCheck = (config: LoadedConfig): Effect.Effect<Check> =>
  Effect.suspend(() => {
    const credentials = credentialsOf(config)
    return typeof credentials === "string" ? Effect.fail(new Error(credentials)) : chooseStore(storeSettings(config), credentials)
  }).pipe(
    Effect.map((choice) => {
      if (choice.kind === "nats") return check("store", "ok", `NATS JetStream at ${displayNatsUrl(choice.url)} (${choice.reason})`, true)
      const blocked = writableDir(config.values.dataDir)
      return blocked === null
        ? check("store", "ok", `embedded at ${choice.path} (${choice.reason})`, true)
        : check("store", "fail", `embedded store at ${choice.path} cannot be created: ${blocked} is not writable`, true)
    }),
    Effect.catch((e) => Effect.succeed(check("store", "fail", oneLine(e), true)))
  )

const binaryCheck = (name: string, path: string, setting: string, neededFor: string): Effect.Effect<Check> =>
  existsSync(path)
    ? Effect.map(programVersion(path), (v) =>
        v === null ? check(name, "warn", `found at ${path} but '${path} --version' failed`) : check(name, "ok", `${v} at ${path}`)
      )
    : Effect.succeed(check(name, "warn", `not found at ${path} (install it or set ${setting}); needed for ${neededFor}`))

/** Chromedriver only drives a Chromium of its own major version. */
const matchDrivers = (chromium: Check, driver: Check): Check => {
  if (chromium.status !== "ok" || driver.status !== "ok") return driver
  const major = (c: Check) => c.detail.match(/(\d+)\.\d+\.\d+/)?.[1]
  const [a, b] = [major(chromium), major(driver)]
  return a !== undefined && b !== undefined && a !== b
    ? check(driver.name, "warn", `${driver.detail}, but Chromium is major version ${a}: they must match`)
    : driver
}

const natsServerCheck = (): Effect.Effect<Check> => {
  const path = Bun.which("nats-server")
  if (path === null)
    return Effect.succeed(
      check("nats-server", "warn", "not on PATH; only needed to run a local NATS (the embedded store works without it)")
    )
  return Effect.map(programVersion(path), (v) =>
    v === null
      ? check("nats-server", "warn", `found at ${path} but '--version' failed`)
      : check("nats-server", "ok", `${v.replace(/^nats-server:\s*/, "")} at ${path}`)
  )
}

const ANDROID_USE = "needed only for Android devices and emulators"

/**
 * adb talks to devices; Appium finds it through ANDROID_HOME (or ANDROID_SDK_ROOT), not
 * PATH, so an adb without either is a warning too.
 */
const adbCheck = (env: Readonly<Record<string, string | undefined>> = process.env): Effect.Effect<Check> => {
  const sdk = env.ANDROID_HOME || env.ANDROID_SDK_ROOT || null
  const inSdk = sdk === null ? null : ([join(sdk, "platform-tools", "adb"), join(sdk, "adb")].find((p) => existsSync(p)) ?? null)
  const path = Bun.which("adb") ?? inSdk
  if (path === null)
    return Effect.succeed(
      check(
        "adb",
        "warn",
        `not found on PATH${sdk === null ? "" : ` or in ${sdk}`} (apt-get install adb, or the Android SDK platform-tools); ${ANDROID_USE}`
      )
    )
  return Effect.map(programVersion(path, ["version"]), (v) => {
    if (v === null) return check("adb", "warn", `found at ${path} but '${path} version' failed`)
    const version = v.replace(/^Android Debug Bridge version\s*/i, "adb ")
    return sdk === null
      ? check(
          "adb",
          "warn",
          `${version} at ${path}, but ANDROID_HOME is not set: Appium needs it (an SDK directory holding platform-tools/adb)`
        )
      : check("adb", "ok", `${version} at ${path} (ANDROID_HOME ${sdk})`)
  })
}

/** The version of an npm package as the project installed it, or null when it is not installed. */
const installedVersion = (name: string): { readonly version: string; readonly dir: string } | null => {
  try {
    const manifest = Bun.resolveSync(`${name}/package.json`, import.meta.dir)
    const version = (JSON.parse(readFileSync(manifest, "utf8")) as { version?: unknown }).version
    return typeof version === "string" ? { version, dir: dirname(manifest) } : null
  } catch {
    return null
  }
}

/** The project's Appium (a dev dependency), else one on PATH. */
const appiumCheck = (): Effect.Effect<Check> => {
  const local = installedVersion("appium")
  if (local !== null)
    return Effect.succeed(check("appium", "ok", `Appium ${local.version} in ${local.dir} (start: node node_modules/appium/index.js)`))
  const global = Bun.which("appium")
  if (global === null) return Effect.succeed(check("appium", "warn", `not installed (bun install); ${ANDROID_USE}`))
  return Effect.map(programVersion(global), (v) =>
    v === null ? check("appium", "warn", `found at ${global} but '--version' failed`) : check("appium", "ok", `Appium ${v} at ${global}`)
  )
}

/**
 * Resolving the driver's package is instant; `appium driver list --installed --json` takes
 * seconds, so it is asked only of an Appium from outside the project.
 */
const uiautomator2Check = (): Effect.Effect<Check> => {
  const local = installedVersion("appium-uiautomator2-driver")
  if (local !== null)
    return Effect.succeed(check("uiautomator2 driver", "ok", `appium-uiautomator2-driver ${local.version} in ${local.dir}`))
  const global = Bun.which("appium")
  const missing = check(
    "uiautomator2 driver",
    "warn",
    `not installed (bun install, or: appium driver install uiautomator2); ${ANDROID_USE}`
  )
  if (global === null || installedVersion("appium") !== null) return Effect.succeed(missing)
  return Effect.map(runProgram([global, "driver", "list", "--installed", "--json"], { timeoutMs: 20_000 }), (out) => {
    try {
      const driver = (JSON.parse(out?.stdout ?? "") as Record<string, { version?: string; installed?: boolean }>).uiautomator2
      return driver?.installed === true
        ? check("uiautomator2 driver", "ok", `uiautomator2 ${driver.version ?? ""} (appium driver list)`.trim())
        : missing
    } catch {
      return missing
    }
  })
}

const DEFAULT_POSTGRES = "postgres://127.0.0.1:5432/postgres"

const postgresCheck = (config: LoadedConfig): Effect.Effect<Check> =>
  Effect.promise(async () => {
    const dbUrl = config.values["database.url"]
    const configured = /^postgres(ql)?:\/\//i.test(dbUrl)
    const url = configured ? dbUrl : DEFAULT_POSTGRES
    const shown = redactUrl(url)
    // Errors are echoed, so anything that looks like the URL's secret part is scrubbed first.
    const clean = (text: string) => redactUrl(text.split(url).join(shown))
    const sql = new SQL({ url, max: 1, connectionTimeout: 2, idleTimeout: 1 })
    try {
      const rows = await Promise.race([
        sql`select version()`,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no answer within 4 s")), 4000).unref())
      ])
      const version = String((rows as Array<{ version?: unknown }>)[0]?.version ?? "unknown version")
        .split(" ")
        .slice(0, 2)
        .join(" ")
      return check("postgresql", "ok", `${version} at ${shown}${configured ? "" : " (not used: database.url is SQLite)"}`)
    } catch (e) {
      const why = clean(oneLine(e))
      return check(
        "postgresql",
        "warn",
        configured ? `database.url ${shown}: ${why}` : `none at ${shown} (${why}); only needed when database.url is postgres://`
      )
    } finally {
      await sql.close().catch(() => undefined)
    }
  })

const MARK: Record<Status, string> = { ok: "✓", warn: "!", fail: "✗" }

export const doctor: Command<Failure> = {
  name: "doctor",
  summary: "check Bun, NATS, the event store, Chromium, chromedriver, PostgreSQL and the Android tools",
  flags: {
    json: { kind: "boolean", description: "print { checks, ok } as JSON" },
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      const { check: cfg, config } = yield* configCheck(args)
      const [nats, natsAuth, natsLog, store, chromium, shell, driver, natsServer, postgres, adb, appium, uiautomator2] = yield* Effect.all(
        [
          natsCheck(config),
          natsAuthCheck(config),
          natsLogWritesCheck(config),
          storeCheck(config),
          binaryCheck("chromium", config.values["chromium.path"], "CORE_CHROMIUM or chromium.path", "web rollouts"),
          binaryCheck(
            "headless shell",
            HEADLESS_SHELL,
            "apt-get install chromium-headless-shell",
            "fast headless rollouts; without it they use chromium, about half as fast"
          ),
          binaryCheck("chromedriver", config.values["chromedriver.path"], "CORE_CHROMEDRIVER or chromedriver.path", "mobile-web rollouts"),
          natsServerCheck(),
          postgresCheck(config),
          adbCheck(),
          appiumCheck(),
          uiautomator2Check()
        ],
        { concurrency: "unbounded" }
      )
      const checks = [
        bunCheck(),
        cfg,
        nats,
        natsAuth,
        natsLog,
        store,
        chromium,
        shell,
        matchDrivers(chromium, driver),
        natsServer,
        postgres,
        adb,
        appium,
        uiautomator2
      ]
      const failed = checks.filter((c) => c.required && c.status === "fail")
      const ok = failed.length === 0
      if (args.flags.json === true) {
        console.log(JSON.stringify({ checks: checks.map(({ name, status, detail }) => ({ name, status, detail })), ok }, null, 2))
      } else {
        const w = Math.max(...checks.map((c) => c.name.length))
        for (const c of checks) console.log(`${MARK[c.status]} ${c.name.padEnd(w)}  ${c.detail}`)
        const count = (s: Status) => checks.filter((c) => c.status === s).length
        console.log(`\n${count("ok")} ok, ${count("warn")} warning(s), ${count("fail")} failed`)
      }
      if (!ok) return yield* new CliError({ message: `doctor: required check failed: ${failed.map((c) => c.name).join(", ")}` })
    })
}
