import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { sha256 } from "@core/events"
import { loadPrompt, PROMPTS_DIR, promptVariables, renderPrompt } from "../mod.ts"

const dir = mkdtempSync(join(tmpdir(), "core-prompts-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
writeFileSync(join(dir, "greet.v1.md"), "Hello {{name}}.")
writeFileSync(join(dir, "greet.v2.md"), "Hi {{name}}, about {{topic}}.")
writeFileSync(join(dir, "greet.v10.md"), "Hey {{ name }}: {{topic}} / {{name}}")
writeFileSync(join(dir, "greeting.v99.md"), "another prompt whose name merely starts the same")
writeFileSync(join(dir, "greet.md"), "no version: not a prompt file")

test("the shipped prompts load with their variables, version and digest", async () => {
  const keySteps = await Effect.runPromise(loadPrompt("key-steps"))
  expect(keySteps.version).toBe("1")
  expect(keySteps.digest).toBe(sha256(readFileSync(join(PROMPTS_DIR, "key-steps.v1.md"), "utf8")))
  expect(promptVariables(keySteps)).toEqual(["instruction", "descriptions"])

  const synthesis = await Effect.runPromise(loadPrompt("lf-synthesis"))
  expect(promptVariables(synthesis)).toEqual(["api", "instruction", "keyStep", "context", "feedback"])
  expect(synthesis.text).toContain("function labelFunction(t)")
})

test("the latest version by number unless one is asked for", async () => {
  const latest = await Effect.runPromise(loadPrompt("greet", { dir }))
  expect([latest.version, latest.text]).toEqual(["10", "Hey {{ name }}: {{topic}} / {{name}}"])
  const v2 = await Effect.runPromise(loadPrompt("greet", { dir, version: "v2" }))
  expect([v2.version, v2.digest]).toEqual(["2", sha256("Hi {{name}}, about {{topic}}.")])
  expect((await Effect.runPromise(loadPrompt("greet", { dir, version: "1" }))).text).toBe("Hello {{name}}.")
})

test("a missing prompt or version fails naming what exists", async () => {
  const noVersion = await Effect.runPromise(Effect.flip(loadPrompt("greet", { dir, version: "3" })))
  expect(noVersion.message).toBe(`prompt greet v3 in ${dir}: no such version (have v10, v2, v1)`)
  const none = await Effect.runPromise(Effect.flip(loadPrompt("farewell", { dir })))
  expect(none.message).toContain("no such prompt")
})

test("render substitutes every occurrence once, and names every missing variable", async () => {
  const prompt = await Effect.runPromise(loadPrompt("greet", { dir }))
  // A value containing a placeholder is not substituted again.
  expect(await Effect.runPromise(renderPrompt(prompt, { name: "Ada {{topic}}", topic: "LFs" }))).toBe(
    "Hey Ada {{topic}}: LFs / Ada {{topic}}"
  )
  const missing = await Effect.runPromise(Effect.flip(renderPrompt(prompt, { name: "Ada" })))
  expect(missing._tag).toBe("PromptVariableMissing")
  expect(missing.message).toBe("prompt greet v10 needs {{topic}}, which was not given")
  // An empty value is a value (lf-synthesis's first feedback is empty).
  expect(await Effect.runPromise(renderPrompt(prompt, { name: "", topic: "" }))).toBe("Hey :  / ")
})
