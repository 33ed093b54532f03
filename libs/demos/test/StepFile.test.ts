/** Step files: a valid one decodes; each defect is ONE line `<file>: <json path>: <problem>`. */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describeStep, loadStepFile, parseStepFile, StepFileError, stepOfAction } from "../mod.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-stepfile-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const valid = (): any => ({
  version: 1,
  steps: [
    { kind: "type", target: { role: "searchbox", name: "Search products" }, text: "Harbor Modern Trekking Poles", submit: true },
    { kind: "click", target: { role: "link", name: "Harbor Modern Trekking Poles", nth: 0 } },
    { kind: "type", target: { role: "textbox", name: "Password" }, secretEnv: "CORE_DEMO_PASSWORD" },
    { kind: "type", target: { name: "Notes" }, text: "x", mode: "insert" },
    { kind: "type", target: { role: "textbox", name: null, nth: 1 }, text: "unlabelled" },
    { kind: "select", target: { role: "combobox", name: "Sort" }, value: "price" },
    { kind: "scroll", direction: "down" },
    { kind: "scroll", direction: "up", target: { text: "Reviews" } },
    { kind: "key", key: "Escape" },
    { kind: "navigate", url: "/shop/wishlist" },
    { kind: "back" },
    { kind: "wait", ms: 200 },
    { kind: "long_press", target: { role: "button", name: "Add to wish list" } },
    { kind: "status", status: "complete" }
  ]
})

const parse = (json: unknown, file = "steps.json") =>
  Effect.runPromise(
    Effect.match(parseStepFile(typeof json === "string" ? json : JSON.stringify(json), file), {
      onFailure: (error) => ({ ok: false as const, error }),
      onSuccess: (value) => ({ ok: true as const, value })
    })
  )

describe("step files", () => {
  test("a valid file decodes, every kind of the vocabulary as written", async () => {
    const r = await parse(valid())
    expect(r.ok ? r.value : r.error.message).toEqual(valid())
  })

  /** What: a change to the valid file (or the text instead of it), and the line it must give. */
  const broken: ReadonlyArray<[string, ((d: any) => void) | string, string]> = [
    ["not JSON", "{ nope", "$: not valid JSON"],
    ["not an object", "[]", "$: a step file is a JSON object"],
    ["a wrong version", (d) => void (d.version = 2), "version: unsupported step file version 2 (this build reads 1)"],
    [
      "an unknown kind",
      (d) => void (d.steps[1].kind = "swipe"),
      "steps[1].kind: unknown step kind 'swipe' (known: click, long_press, type"
    ],
    ["a step without a kind", (d) => void delete d.steps[2].kind, "steps[2].kind: missing step kind"],
    ["an unknown key in a step", (d) => void (d.steps[1].comment = "x"), "steps[1].comment: unknown field"],
    [
      "an unknown key in a target (an element id)",
      (d) => void (d.steps[1].target.elementId = "e4"),
      "steps[1].target.elementId: unknown field"
    ],
    ["an unknown top-level key", (d) => void (d.format = "x"), "format: unknown field"],
    ["an empty target", (d) => void (d.steps[3].target = { nth: 1 }), "steps[3].target: a target needs at least one of role, name, text"],
    [
      "an empty name (the field with no name is null)",
      (d) => void (d.steps[1].target.name = ""),
      'steps[1].target.name: an empty name matches no element; for the element that has no name, write "name": null (with its role)'
    ],
    [
      "no name without a role",
      (d) => void (d.steps[4].target = { name: null }),
      'steps[4].target: "name": null needs a role: the element with no name is found among those of its role'
    ],
    ["a null role", (d) => void (d.steps[4].target.role = null), "steps[4].target.role: expected string"],
    ["a negative nth", (d) => void (d.steps[1].target.nth = -1), "steps[1].target.nth: expected a value greater than or equal to 0"],
    ["a missing target", (d) => void delete d.steps[1].target, "steps[1].target: missing field"],
    ["a type without text", (d) => void delete d.steps[0].text, "steps[0].text: missing field"],
    [
      "a secret with text",
      (d) => void (d.steps[2].text = "hunter2"),
      "steps[2].text: a secret is typed by reference: leave text out, the environment types $CORE_DEMO_PASSWORD"
    ],
    ["an unknown mode", (d) => void (d.steps[3].mode = "append"), 'steps[3].mode: expected "fill" | "insert"'],
    ["a full URL", (d) => void (d.steps[9].url = "http://127.0.0.1:4000/shop/"), "steps[9].url: a path relative to the app's base URL"],
    ["no steps", (d) => void (d.steps = []), "steps: a step file needs at least one step"],
    [
      "a last step that does not end",
      (d) => void d.steps.pop(),
      "steps[12].kind: the last step must be 'status' or 'answer', got 'long_press'"
    ],
    [
      "an answer before the end",
      (d) => void d.steps.splice(2, 0, { kind: "answer", text: "x" }),
      "steps[2].kind: 'answer' ends the episode: it must be the last step"
    ]
  ]
  for (const [what, mutate, want] of broken) {
    test(`${what}: one line naming the field`, async () => {
      const d = valid()
      if (typeof mutate !== "string") mutate(d)
      const r = await parse(typeof mutate === "string" ? mutate : d)
      if (r.ok) throw new Error("decoded a broken step file")
      expect(r.error).toBeInstanceOf(StepFileError)
      expect(r.error.message).not.toContain("\n")
      expect(r.error.message).toStartWith(`steps.json: ${want}`)
    })
  }

  test("read from disk: size capped, no links, UTF-8 only", async () => {
    const file = join(tmp, "ok.json")
    writeFileSync(file, JSON.stringify(valid()))
    expect((await Effect.runPromise(loadStepFile(file))).steps).toHaveLength(14)
    const fail = (f: string, maxBytes?: number) =>
      Effect.runPromise(Effect.flip(loadStepFile(f, maxBytes === undefined ? {} : { maxBytes }))).then((e) => e.message)
    expect(await fail(file, 100)).toMatch(/^.*ok\.json: \$: ok\.json is \d+ B, over the 100 B limit for a step file$/)
    symlinkSync(file, join(tmp, "link.json"))
    expect(await fail(join(tmp, "link.json"))).toEndWith("link.json: $: link.json is a symbolic link, not a file")
    writeFileSync(join(tmp, "latin1.json"), new Uint8Array([0x7b, 0xe9, 0x7d]))
    expect(await fail(join(tmp, "latin1.json"))).toEndWith("latin1.json: $: not UTF-8 text")
    expect(await fail(join(tmp, "absent.json"))).toEndWith("absent.json: $: absent.json not found")
  })

  test("describeStep names a step as messages do", () => {
    const steps = valid().steps
    expect(steps.slice(0, 3).map(describeStep)).toEqual([
      'type searchbox "Search products"',
      'click link "Harbor Modern Trekking Poles" nth 0',
      'type textbox "Password"'
    ])
    expect(describeStep({ kind: "scroll", direction: "up", target: { text: "Reviews" } })).toBe('scroll up element with text "Reviews"')
    expect(describeStep({ kind: "navigate", url: "/shop/" })).toBe("navigate /shop/")
    expect(describeStep(steps[4])).toBe("type textbox with no name nth 1")
  })

  test("stepOfAction: a recorded action as the step that plays it again; what a step file cannot say is null", () => {
    const target = (role: string | null, name: string | null) => ({ role, name, elementId: "e7", text: null })
    const cases: ReadonlyArray<[string, any, any]> = [
      [
        "a click by role and name",
        { kind: "click", target: target("link", "Water Pump") },
        { kind: "click", target: { role: "link", name: "Water Pump" } }
      ],
      [
        "a typed text, submitted",
        { kind: "type", target: target("searchbox", "Search"), text: "fuses", submit: true },
        { kind: "type", target: { role: "searchbox", name: "Search" }, text: "fuses", submit: true }
      ],
      [
        "an unnamed field by its role",
        { kind: "type", target: target("textbox", null), text: "Log", submit: false },
        { kind: "type", target: { role: "textbox" }, text: "Log" }
      ],
      ["a key, a path, an answer", { kind: "navigate", url: "/#Water%20Pump" }, { kind: "navigate", url: "/#Water%20Pump" }],
      ["a target with neither role nor name", { kind: "click", target: target(null, null) }, null],
      [
        "a secret typed by reference",
        { kind: "type", target: target("textbox", "Password"), text: "", submit: false, secretEnv: "PW" },
        null
      ],
      ["an absolute URL", { kind: "navigate", url: "https://elsewhere.example/" }, null],
      ["an app switch", { kind: "open_app", app: "org.example" }, null]
    ]
    for (const [name, action, step] of cases) expect([name, stepOfAction(action)]).toEqual([name, step])
  })
})
