/**
 * What a pack's log-in may type, as the CLI decides it (PackSecrets.ts, over libs/apps SecretGrants.ts): the grants of
 * `--allow-secret` and of core.config.json's `packs`, per pack, and never a variable CORE
 * reads — its settings', the secrets they name as configured, PostgreSQL's, and every
 * variable CORE's own sources read by name.
 */
import { expect, test } from "bun:test"
import { Glob } from "bun"
import { Effect } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CONFIG_KEYS, configKeys, loadConfig } from "@core/config"
import { coreVariable, secretRefusal } from "@core/apps"
import { parseArgs } from "../Cli.ts"
import type { Command } from "../Cli.ts"
import { allowSecretFlags, packSecretRule } from "../PackSecrets.ts"

const REPO = join(import.meta.dir, "..", "..", "..")

const configOf = (env: Record<string, string>, file?: unknown) => {
  const dir = mkdtempSync(join(tmpdir(), "core-pack-secrets-"))
  try {
    const path = join(dir, "core.config.json")
    writeFileSync(path, JSON.stringify(file ?? {}))
    return Effect.runSync(loadConfig({ env, configPath: path }))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const command: Command = { name: "t", summary: "", flags: allowSecretFlags, run: () => Effect.void }
const argsOf = (argv: ReadonlyArray<string>) => Effect.runSync(parseArgs(command, argv))

test("given the model key, NATS credentials and database named by the user, when a pack's log-in names them, then each is CORE's own", () => {
  const config = configOf(
    { CORE_MODEL_API_KEY_ENV: "OPENAI_API_KEY" },
    { nats: { userEnv: "MY_NATS_USER", passwordEnv: "MY_NATS_PASSWORD", tokenEnv: "MY_NATS_TOKEN", credsFileEnv: "MY_NATS_CREDS" } }
  )
  const own = coreVariable(config)
  expect(own("OPENAI_API_KEY")).toBe("the secret models.apiKeyEnv names")
  for (const v of ["MY_NATS_USER", "MY_NATS_PASSWORD", "MY_NATS_TOKEN", "MY_NATS_CREDS"]) expect(own(v)).toStartWith("the secret nats.")
  expect(own("DATABASE_URL")).toBe("the setting database.url")
  expect(own("PGPASSWORD")).toBe("the PostgreSQL client's settings and password")
  // The default key variable stays refused when the config names another: it may still hold a key.
  expect(own("CORE_MODEL_API_KEY")).toBeDefined()
  // Every setting's own variable, CORE_* or not.
  for (const key of configKeys) expect(own(CONFIG_KEYS[key].env)).toBe(`the setting ${key}`)
  // A user's variable, even one spelled like CORE's, is not CORE's.
  for (const v of ["NOTES_PASSWORD", "CORE_NOTES_PASSWORD", "MY_PGPASSWORD"]) expect(own(v)).toBeUndefined()
})

test("the model key's default variable is refused: what models.apiKeyEnv names when nothing overrides it", () => {
  const defaults = configOf({})
  expect(defaults.sources["models.apiKeyEnv"]).toBe("default")
  expect(coreVariable(defaults)(defaults.values["models.apiKeyEnv"])).toBeDefined()
})

test("every variable CORE's sources read by name (through process.env or Bun.env) is refused", async () => {
  const read = new Set<string>()
  const files = [...new Glob("{libs,apps,events}/**/*.ts").scanSync({ cwd: REPO })].filter(
    (p) => !p.includes("node_modules/") && !p.includes("/test/")
  )
  expect(files.length).toBeGreaterThan(100)
  const access = /\b(?:process\.env|Bun\.env)(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*["'`]([A-Za-z_][A-Za-z0-9_]*)["'`]\s*\])/g
  for (const path of files) for (const m of (await Bun.file(join(REPO, path)).text()).matchAll(access)) read.add(m[1] ?? m[2]!)
  expect(read.has("CORE_DEBUG")).toBe(true)
  const own = coreVariable(configOf({}))
  expect([...read].filter((v) => own(v) === undefined)).toEqual([])
  // The scan itself finds a name.
  expect([..."const x = process.env.NEW_KEY".matchAll(access)].map((m) => m[1])).toEqual(["NEW_KEY"])
})

test("given --allow-secret twice and a grant in the file for one pack, when the rule is asked, then each pack gets the flags' and its own grant, never CORE's", () => {
  const config = configOf({ CORE_MODEL_API_KEY_ENV: "OPENAI_API_KEY" }, { packs: { notes: { allowSecrets: ["NOTES_PASSWORD"] } } })
  const rule = packSecretRule(config, argsOf(["--allow-secret", "WIKI_PASSWORD", "--allow-secret=OPENAI_API_KEY"]))
  expect([...rule.allowed("notes")].sort()).toEqual(["NOTES_PASSWORD", "OPENAI_API_KEY", "WIKI_PASSWORD"])
  expect([...rule.allowed("wiki")].sort()).toEqual(["OPENAI_API_KEY", "WIKI_PASSWORD"])
  expect(secretRefusal(rule, "wiki", "WIKI_PASSWORD")).toBeUndefined()
  expect(secretRefusal(rule, "wiki", "NOTES_PASSWORD")).toStartWith("the pack wiki may not type NOTES_PASSWORD unless you allow it")
  expect(secretRefusal(rule, "notes", "OPENAI_API_KEY")).toStartWith("OPENAI_API_KEY is CORE's own")
  expect([...packSecretRule(config, argsOf([])).allowed("wiki")]).toEqual([])
})

test("given --allow-secret with a value that is not a variable's name, when parsed, then one usage line that never echoes it", () => {
  const error = Effect.runSync(Effect.flip(parseArgs(command, ["--allow-secret", "sk-live-123"])))
  expect(error._tag).toBe("UsageError")
  expect(error.message).toBe(
    "--allow-secret takes the NAME of an environment variable (letters, digits and '_', not starting with a digit), not its value"
  )
})
