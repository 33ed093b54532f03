import { afterAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  androidSettings,
  codeVersion,
  configuredSecrets,
  forRecording,
  natsCredentials,
  natsOutageLimitMs,
  scrubSecrets,
  ingestLimits,
  loadConfig,
  redactUrl,
  runIdentity,
  secretValue,
  setOfMarksFor,
  storeSettings,
  toolVersions
} from "../mod.ts"
import type { LoadOptions } from "../mod.ts"

const REPO = join(import.meta.dir, "../../..")
const dirs: Array<string> = []
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "core-config-"))
  dirs.push(d)
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** A project root holding the given core.config.json text (or none). */
const project = (text?: string): string => {
  const root = tempDir()
  if (text !== undefined) writeFileSync(join(root, "core.config.json"), text)
  return root
}

const load = (options: LoadOptions) => Effect.runPromise(loadConfig({ env: {}, ...options }))
const loadError = (options: LoadOptions) => Effect.runPromise(Effect.flip(loadConfig({ env: {}, ...options })))

describe("loadConfig", () => {
  test("defaults when there is no file, no environment and no flags", async () => {
    const c = await load({ root: project() })
    expect(c.file.found).toBe(false)
    expect(c.values).toEqual({
      store: "auto",
      "nats.url": "nats://127.0.0.1:4222",
      "nats.outageLimitMs": "600000",
      "nats.userEnv": null,
      "nats.passwordEnv": null,
      "nats.tokenEnv": null,
      "nats.credsFileEnv": null,
      dataDir: ".core",
      seed: "0",
      "database.url": "sqlite:.core/projections.db",
      "models.baseUrl": null,
      "models.model": null,
      "models.apiKeyEnv": "CORE_MODEL_API_KEY",
      "models.setOfMarks": null,
      "chromium.path": "/usr/bin/chromium",
      "chromedriver.path": "/usr/bin/chromedriver",
      "android.appiumUrl": "http://127.0.0.1:4723",
      "android.capabilities": `{"platformName":"Android","appium:automationName":"UiAutomator2"}`,
      "ingest.maxBlobBytes": "16MiB",
      "ingest.maxDemoBytes": "256MiB",
      "workers.ackWaitMs": "30000",
      "workers.maxDeliveries": "3"
    })
    expect(new Set(Object.values(c.sources))).toEqual(new Set(["default"]))
  })

  test("precedence is file < environment < flag, and each value says where it came from", async () => {
    const root = project(
      JSON.stringify({
        store: "embedded",
        nats: { url: "nats://file:4222" },
        dataDir: "from-file",
        seed: 42,
        models: { baseUrl: "http://127.0.0.1:8000/v1", model: "file-model" }
      })
    )
    const c = await load({
      root,
      env: { NATS_URL: "nats://env:4222", CORE_DATA_DIR: "from-env", CORE_MODEL: "env-model", CORE_SEED: "" },
      flags: { "data-dir": "from-flag", json: true }
    })
    expect(c.file.found).toBe(true)
    expect(c.values.store).toBe("embedded")
    expect(c.sources.store).toBe("file")
    expect(c.values["nats.url"]).toBe("nats://env:4222")
    expect(c.sources["nats.url"]).toBe("env:NATS_URL")
    expect(c.values.dataDir).toBe("from-flag")
    expect(c.sources.dataDir).toBe("flag:--data-dir")
    // An empty variable is "unset", so the file's number survives, as a string.
    expect(c.values.seed).toBe("42")
    expect(c.sources.seed).toBe("file")
    expect(c.values["models.model"]).toBe("env-model")
    expect(c.sources["models.model"]).toBe("env:CORE_MODEL")
    expect(c.values["models.baseUrl"]).toBe("http://127.0.0.1:8000/v1")
    // The default database follows the winning dataDir.
    expect(c.values["database.url"]).toBe("sqlite:from-flag/projections.db")
    expect(c.sources["database.url"]).toBe("default")
  })

  test("flat dotted keys in the file mean the same as nested ones", async () => {
    const c = await load({ root: project(JSON.stringify({ "nats.url": "nats://flat:4222", "chromium.path": "/opt/chromium" })) })
    expect(c.values["nats.url"]).toBe("nats://flat:4222")
    expect(c.values["chromium.path"]).toBe("/opt/chromium")
  })

  test("CORE_CONFIG points at another file; a file named that way must exist", async () => {
    const other = join(project(), "elsewhere.json")
    writeFileSync(other, JSON.stringify({ store: "nats" }))
    const c = await load({ root: project(), env: { CORE_CONFIG: other } })
    expect(c.file).toEqual({ path: other, found: true })
    expect(c.values.store).toBe("nats")
    const e = await loadError({ root: project(), env: { CORE_CONFIG: "/nonexistent/core.json" } })
    expect(e.message).toBe("/nonexistent/core.json: config file not found")
  })

  test("storeSettings: a NATS URL is configured only when something other than the default set it", async () => {
    const plain = storeSettings(await load({ root: project() }))
    expect(plain).toEqual({ store: "auto", natsUrl: "nats://127.0.0.1:4222", natsUrlConfigured: false, dataDir: ".core" })
    const fromEnv = storeSettings(await load({ root: project(), env: { NATS_URL: "nats://127.0.0.1:4222" } }))
    expect(fromEnv.natsUrlConfigured).toBe(true)
  })
})

describe("ingest limits", () => {
  test("16 MiB per file and 256 MiB per demo by default; a number in the file, a size with a unit from env or flag; junk is one line", async () => {
    expect(ingestLimits(await load({ root: project() }))).toEqual({ maxBlobBytes: 16 * 1024 ** 2, maxDemoBytes: 256 * 1024 ** 2 })
    const root = project(JSON.stringify({ ingest: { maxBlobBytes: 65536 } }))
    const c = await load({ root, env: { CORE_INGEST_MAX_DEMO_BYTES: "1GiB" } })
    expect(ingestLimits(c)).toEqual({ maxBlobBytes: 65536, maxDemoBytes: 1024 ** 3 })
    expect(ingestLimits(await load({ root, flags: { "max-blob-bytes": "2 KiB" } })).maxBlobBytes).toBe(2048)
    const e = await loadError({ root: project(), env: { CORE_INGEST_MAX_BLOB_BYTES: "-5" } })
    expect(e.message).toBe(
      "environment variable CORE_INGEST_MAX_BLOB_BYTES (ingest.maxBlobBytes): must be a positive size in bytes, e.g. 16777216 or 16MiB"
    )
  })
})

describe("set-of-marks", () => {
  test("unset by default: on for the model policy, off for the exploration and embedded policies", async () => {
    const c = await load({ root: project() })
    expect(c.values["models.setOfMarks"]).toBeNull()
    expect(c.sources["models.setOfMarks"]).toBe("default")
    expect(setOfMarksFor(c, "model")).toBe(true)
    expect(setOfMarksFor(c, "exploration")).toBe(false)
    expect(setOfMarksFor(c, "embedded")).toBe(false)
  })

  test("set in the file, the environment or a flag, it holds for every policy", async () => {
    const off = await load({ root: project(JSON.stringify({ models: { setOfMarks: false } })) })
    expect([off.values["models.setOfMarks"], off.sources["models.setOfMarks"]]).toEqual([false, "file"])
    expect(setOfMarksFor(off, "model")).toBe(false)
    const on = await load({ root: project(JSON.stringify({ "models.setOfMarks": false })), env: { CORE_SET_OF_MARKS: "true" } })
    expect([on.values["models.setOfMarks"], on.sources["models.setOfMarks"]]).toEqual([true, "env:CORE_SET_OF_MARKS"])
    expect(setOfMarksFor(on, "exploration")).toBe(true)
    const flag = await load({ root: project(), env: { CORE_SET_OF_MARKS: "true" }, flags: { "set-of-marks": "false" } })
    expect([flag.values["models.setOfMarks"], flag.sources["models.setOfMarks"]]).toEqual([false, "flag:--set-of-marks"])
    // Recorded (RunStarted, `config show`) as the boolean it is.
    expect(forRecording(on).config["models.setOfMarks"]).toBe(true)
  })

  test("anything but true or false is one line naming where it came from", async () => {
    expect((await loadError({ root: project(), env: { CORE_SET_OF_MARKS: "yes" } })).message).toBe(
      "environment variable CORE_SET_OF_MARKS (models.setOfMarks): must be true or false"
    )
    const root = project(JSON.stringify({ models: { setOfMarks: "true" } }))
    expect((await loadError({ root })).message).toBe(`${join(root, "core.config.json")}: key "models.setOfMarks": must be true or false`)
  })
})

describe("android settings", () => {
  test("given no settings, when loaded, then Appium is on 127.0.0.1:4723 with UiAutomator2 capabilities", async () => {
    const android = androidSettings(await load({ root: project() }))
    expect(android).toEqual({
      appiumUrl: "http://127.0.0.1:4723",
      capabilities: { platformName: "Android", "appium:automationName": "UiAutomator2" }
    })
  })

  test("given capabilities as an object in the file, when loaded, then they are kept as their JSON text", async () => {
    const caps = {
      platformName: "Android",
      "appium:automationName": "UiAutomator2",
      "appium:udid": "emulator-5554",
      "appium:appPackage": "com.android.settings"
    }
    const c = await load({ root: project(JSON.stringify({ android: { appiumUrl: "http://10.0.0.2:4723", capabilities: caps } })) })
    expect(c.values["android.capabilities"]).toBe(JSON.stringify(caps))
    expect(c.sources["android.capabilities"]).toBe("file")
    expect(androidSettings(c)).toEqual({ appiumUrl: "http://10.0.0.2:4723", capabilities: caps })
  })

  test("given CORE_ANDROID_CAPABILITIES and --appium-url, when loaded, then they win over the file", async () => {
    const root = project(JSON.stringify({ "android.capabilities": { "appium:udid": "from-file" } }))
    const c = await load({
      root,
      env: { CORE_ANDROID_CAPABILITIES: `{"appium:udid":"from-env"}` },
      flags: { "appium-url": "http://127.0.0.1:4800" }
    })
    expect(androidSettings(c)).toEqual({ appiumUrl: "http://127.0.0.1:4800", capabilities: { "appium:udid": "from-env" } })
    expect(c.sources["android.capabilities"]).toBe("env:CORE_ANDROID_CAPABILITIES")
    expect(c.sources["android.appiumUrl"]).toBe("flag:--appium-url")
  })

  test("given capabilities that are not a JSON object, when loaded, then one line names the variable and the key", async () => {
    for (const bad of ["udid=emulator-5554", "[1, 2]", "null"]) {
      const e = await loadError({ root: project(), env: { CORE_ANDROID_CAPABILITIES: bad } })
      expect(e.message).toStartWith(
        "environment variable CORE_ANDROID_CAPABILITIES (android.capabilities): must be a JSON object of Appium capabilities"
      )
      expect(e.message).not.toContain("\n")
      expect(e.message).not.toContain("udid")
    }
    const e = await loadError({ root: project(JSON.stringify({ android: { capabilities: 42 } })) })
    expect(e.message).toMatch(/core\.config\.json: key "android\.capabilities": /)
  })
})

describe("malformed configuration is one line naming the file and the key", () => {
  const cases: ReadonlyArray<readonly [string, string, RegExp]> = [
    ["bad JSON", `{ "store": `, /core\.config\.json: invalid JSON: /],
    ["unknown key", `{ "stor": "nats" }`, /core\.config\.json: key "stor": unknown key/],
    ["unknown nested key", `{ "nats": { "uri": "x" } }`, /core\.config\.json: key "nats\.uri": unknown key/],
    ["wrong type", `{ "nats": { "url": 4222 } }`, /core\.config\.json: key "nats\.url": expected string, got 4222/],
    ["bad choice", `{ "store": "kafka" }`, /core\.config\.json: key "store": expected "auto" \| "embedded" \| "nats", got "kafka"/],
    ["group that is not an object", `{ "models": "gpt" }`, /core\.config\.json: key "models": must be an object/],
    ["not an object", `[1, 2]`, /core\.config\.json: must contain a JSON object/]
  ]
  for (const [name, text, pattern] of cases) {
    test(name, async () => {
      const e = await loadError({ root: project(text) })
      expect(e._tag).toBe("ConfigError")
      expect(e.message).toMatch(pattern)
      expect(e.message).not.toContain("\n")
    })
  }

  // JSON.parse makes "__proto__" an own key; copied into a plain object it became the prototype
  // instead, vanished from the excess-key check and leaked its own keys in as settings.
  for (const text of [
    `{ "__proto__": { "store": "nats", "nats.url": "nats://elsewhere:4222" } }`,
    `{ "__proto__": 1 }`,
    `{ "constructor": {} }`,
    `{ "prototype": 1 }`,
    `{ "nats": { "__proto__": { "url": "x" } } }`
  ]) {
    test(`an object-machinery key is an unknown key, not a way in: ${text}`, async () => {
      const e = await loadError({ root: project(text) })
      expect(e.message).toMatch(/core\.config\.json: key "(nats\.)?(__proto__|constructor|prototype)": unknown key/)
      expect(e.message).not.toContain("\n")
    })
  }

  test("a bad environment variable names the variable and the key", async () => {
    const e = await loadError({ root: project(), env: { CORE_STORE: "kafka" } })
    expect(e.message).toBe(`environment variable CORE_STORE (store): expected "auto" | "embedded" | "nats", got "kafka"`)
  })

  test("a key pasted where the variable NAME belongs is refused without echoing it", async () => {
    const e = await loadError({ root: project(), env: { CORE_MODEL_API_KEY_ENV: "sk-live-abc123" } })
    expect(e.message).toContain("models.apiKeyEnv")
    expect(e.message).not.toContain("sk-live-abc123")
  })
})

describe("secrets", () => {
  const KEY = "sk-test-9f8e7d6c5b4a"
  const PASSWORD = "hunter2-Pa55word"
  const env = {
    CORE_MODEL_API_KEY: KEY,
    DATABASE_URL: `postgres://core:${PASSWORD}@db.example:5432/core`,
    CORE_MODEL_BASE_URL: `https://proxy:${PASSWORD}@models.example/v1`
  }

  test("forRecording holds the variable's name and a redacted URL, never the values", async () => {
    const c = await load({ root: project(), env })
    const recorded = forRecording(c, env)
    const json = JSON.stringify(recorded)
    expect(json).not.toContain(KEY)
    expect(json).not.toContain(PASSWORD)
    expect(recorded.config["models.apiKeyEnv"]).toBe("CORE_MODEL_API_KEY")
    expect(recorded.config["database.url"]).toBe("postgres://core:***@db.example:5432/core")
    expect(recorded.configSources["database.url"]).toBe("env:DATABASE_URL")
  })

  test("secretValue reads the key from the named variable at the moment of use", async () => {
    const c = await load({ root: project(), env: { CORE_MODEL_API_KEY_ENV: "MY_KEY" } })
    expect(c.values["models.apiKeyEnv"]).toBe("MY_KEY")
    expect(secretValue(c, "models.apiKeyEnv", { MY_KEY: KEY })).toBe(KEY)
    expect(secretValue(c, "models.apiKeyEnv", {})).toBeUndefined()
  })

  test("a key pasted into an ordinary field is scrubbed from the record", async () => {
    const c = await load({ root: project(), env: { ...env, CORE_MODEL: `model-${KEY}` } })
    expect(JSON.stringify(forRecording(c, env))).not.toContain(KEY)
  })

  test("runIdentity (everything RunStarted records) is free of secrets too", async () => {
    const c = await load({ root: project(), env })
    const json = JSON.stringify(await Effect.runPromise(runIdentity(c, { root: REPO, env })))
    expect(json).not.toContain(KEY)
    expect(json).not.toContain(PASSWORD)
  })

  test("configuredSecrets: the value of every variable a `*Env` key names, set and long enough to scrub", async () => {
    const c = await load({ root: project(), env: { CORE_MODEL_API_KEY_ENV: "MY_KEY" } })
    expect(configuredSecrets(c.values, { MY_KEY: KEY })).toEqual([KEY])
    // A key added later is covered by its name alone.
    const values = { ...c.values, "nats.passwordEnv": "NATS_PW", "nats.tokenEnv": "NATS_TOKEN", "nats.userEnv": "NATS_USER" }
    expect(configuredSecrets(values, { MY_KEY: KEY, NATS_PW: PASSWORD, NATS_TOKEN: "", NATS_USER: "ab" }).toSorted()).toEqual(
      [KEY, PASSWORD].toSorted()
    )
    expect(scrubSecrets(`key ${KEY}, password ${PASSWORD}`, [KEY, PASSWORD])).toBe("key ***, password ***")
  })

  test("redactUrl", () => {
    expect(redactUrl("postgres://user:pw@host/db")).toBe("postgres://user:***@host/db")
    expect(redactUrl("postgres://user:p@ss/w0rd@host:5432/db?sslmode=require")).toBe("postgres://user:***@host:5432/db?sslmode=require")
    expect(redactUrl("postgres://user@host/db?password=pw&sslmode=disable")).toBe("postgres://user@host/db?password=***&sslmode=disable")
    expect(redactUrl("host=h user=u password=pw dbname=d")).toBe("host=h user=u password=*** dbname=d")
    expect(redactUrl("sqlite:.core/projections.db")).toBe("sqlite:.core/projections.db")
    expect(redactUrl("nats://127.0.0.1:4222")).toBe("nats://127.0.0.1:4222")
  })
})

describe("NATS URLs and credentials", () => {
  // What `forRecording` makes of nats.url: a secret is hidden and the host and port are never touched.
  const recorded: ReadonlyArray<readonly [string, string]> = [
    ["nats://127.0.0.1:4222", "nats://127.0.0.1:4222"],
    ["nats://127.0.0.1:4222/?token=abc", "nats://127.0.0.1:4222/?token=***"],
    ["nats://127.0.0.1:4222?token=s3cr3t-tok", "nats://127.0.0.1:4222?token=***"],
    ["nats://127.0.0.1:4222/?password=4222", "nats://127.0.0.1:4222/?password=***"],
    ["nats://nats.example:14222/?x=1", "nats://nats.example:14222/?x=1"]
  ]
  for (const [url, want] of recorded) {
    test(`${url} is recorded as ${want}`, async () => {
      const c = await load({ root: project(), env: { NATS_URL: url } })
      expect(forRecording(c, {}).config["nats.url"]).toBe(want)
    })
  }

  test("a NATS URL with a user and password is refused in one line that does not echo the password", async () => {
    for (const url of ["nats://u:hunter2-pw@127.0.0.1:4222", "nats://hunter2-token@127.0.0.1:4222"]) {
      const e = await loadError({ root: project(), env: { NATS_URL: url } })
      expect(e.message).toContain("NATS_URL (nats.url)")
      expect(e.message).toContain("nats.passwordEnv")
      expect(e.message).not.toContain("hunter2")
      expect(e.message).not.toContain("\n")
    }
  })

  test("natsCredentials reads the variables the config names, and names an unset one without a value", async () => {
    const none = await load({ root: project() })
    expect(natsCredentials(none, { NATS_PW: "x" })).toEqual({})
    const c = await load({ root: project(), env: { CORE_NATS_USER_ENV: "NATS_U", CORE_NATS_PASSWORD_ENV: "NATS_PW" } })
    expect(natsCredentials(c, { NATS_U: "core", NATS_PW: "pw-123" })).toEqual({ user: "core", password: "pw-123" })
    expect(natsCredentials(c, { NATS_U: "core" })).toEqual({
      missing: "nats.passwordEnv names NATS_PW, which is not set in the environment"
    })
    expect(natsOutageLimitMs(c)).toBe(600_000)
    const e = await loadError({ root: project(), env: { CORE_NATS_PASSWORD_ENV: "pw-itself=x" } })
    expect(e.message).not.toContain("pw-itself")
  })
})

describe("identity", () => {
  test("codeVersion: the commit and a dirty flag inside the repository, null outside", async () => {
    const inside = await Effect.runPromise(codeVersion(REPO))
    expect(inside.commit).toMatch(/^[0-9a-f]{40}$/)
    expect(typeof inside.dirty).toBe("boolean")
    expect(await Effect.runPromise(codeVersion(tempDir()))).toEqual({ commit: null, dirty: false })
  })

  test("toolVersions: what each tool reports, null for an absent one", async () => {
    const c = await load({ root: project(), env: { CORE_CHROMIUM: "/nonexistent/chromium" } })
    const tools = await Effect.runPromise(toolVersions(c))
    expect(tools.bun).toBe(Bun.version)
    expect(tools.chromium).toBeNull()
    // nats-server is installed on every machine these tests run on (scripts/setup installs it).
    expect(tools["nats-server"]).toMatch(/2\.\d+\.\d+/)
  })
})
