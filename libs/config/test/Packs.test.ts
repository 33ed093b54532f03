/**
 * The `packs` object of core.config.json: what the user grants each app pack, by name. Read
 * from the file alone, checked like every other key (one line, the value never echoed), and
 * kept as a map so a pack named like a property of Object's prototype is not confused with it.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { loadConfig } from "../mod.ts"

const root = mkdtempSync(join(tmpdir(), "core-config-packs-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const load = (file: unknown) => {
  const path = join(root, `${crypto.randomUUID()}.json`)
  writeFileSync(path, typeof file === "string" ? file : JSON.stringify(file))
  return Effect.runPromise(Effect.result(loadConfig({ configPath: path, env: {} })))
}

test("given packs with allowSecrets in the file, when loaded, then each pack's grant is read by its name, and no packs is an empty map", async () => {
  const loaded = await load(`{ "packs": { "notes": { "allowSecrets": ["NOTES_PASSWORD"] }, "__proto__": { "allowSecrets": ["X"] } } }`)
  expect(loaded._tag).toBe("Success")
  if (loaded._tag !== "Success") return
  expect(loaded.success.packs.get("notes")).toEqual({ allowSecrets: ["NOTES_PASSWORD"] })
  expect(loaded.success.packs.get("__proto__")).toEqual({ allowSecrets: ["X"] })
  expect(loaded.success.packs.get("constructor")).toBeUndefined()
  const none = await load({})
  expect(none._tag === "Success" && none.success.packs.size).toBe(0)
})

test("given a value that is not a variable's name, or an unknown key in a pack's entry, when loaded, then one line says so and never echoes the value", async () => {
  const pasted = await load({ packs: { notes: { allowSecrets: ["hunter2 is my password"] } } })
  expect(pasted._tag).toBe("Failure")
  if (pasted._tag === "Failure") {
    expect(pasted.failure.message).toEndWith(
      `: key "packs.notes.allowSecrets.0": must be the NAME of an environment variable, not its value`
    )
    expect(pasted.failure.message).not.toContain("hunter2")
  }
  const unknown = await load({ packs: { notes: { allowSecret: ["NOTES_PASSWORD"] } } })
  expect(unknown._tag === "Failure" && unknown.failure.message).toEndWith(
    `: key "packs.notes.allowSecret": unknown key (a pack's entry takes allowSecrets)`
  )
})
