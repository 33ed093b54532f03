/**
 * A person's password in a recorded demo: the recorder's step for a typed password names the
 * variable to replay it from, the demo folder written from it holds the password nowhere, and
 * the loader takes the step (a variable name that is not one is an error).
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DirectoryBlobStore } from "@core/blobstore"
import { typedAction } from "@core/env-web"
import type { Action } from "@core/events"
import { loadDemo, writeDemoFolder } from "../mod.ts"

const PASSWORD = "s3cret-Pa55"
const tmp = mkdtempSync(join(tmpdir(), "core-demo-secret-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const tasks = new Set(["shop-wishlist-add-1"])
const target = { role: "textbox", name: "Password", elementId: "e4", text: null }

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]))

describe("a password in a recorded demo", () => {
  test("is recorded as its variable, written nowhere in the folder, and loads", async () => {
    const warnings: Array<string> = []
    const typed = { text: PASSWORD, submit: true, password: true }
    const { action, warning } = typedAction(target, typed, "SHOP_PASSWORD", () => undefined)
    expect(action).toEqual({ kind: "type", target, text: "", submit: true, secretEnv: "SHOP_PASSWORD" })
    expect(warning).toContain("SHOP_PASSWORD")
    if (warning !== null) warnings.push(warning)
    // Set to the password typed, the variable replays it: no warning.
    expect(typedAction(target, typed, "SHOP_PASSWORD", () => PASSWORD).warning).toBeNull()
    // Text typed into any other field is recorded as typed.
    expect(typedAction(target, { ...typed, password: false }, "SHOP_PASSWORD", () => undefined).action).toMatchObject({ text: PASSWORD })

    const dir = join(tmp, "recorded")
    const steps = [action, { kind: "status", status: "complete" } as Action].map((a) => ({
      action: a,
      urlBefore: "/login",
      urlAfter: "/login",
      observation: { screenshot: null, elements: null, aria: null }
    }))
    const file = await Effect.runPromise(
      writeDemoFolder(steps, dir, { demoId: "login-rec", taskId: "shop-wishlist-add-1", recordedWith: "recorder" }).pipe(
        Effect.provide(DirectoryBlobStore.layer({ dir: join(tmp, "blobs") }))
      )
    )
    for (const f of filesUnder(dir)) expect(readFileSync(f, "utf8")).not.toContain(PASSWORD)
    for (const w of warnings) expect(w).not.toContain(PASSWORD)
    const demo = await Effect.runPromise(loadDemo(file, { tasks }))
    expect(demo.steps[0]!.action).toEqual(action)
  })

  test("a secretEnv that is not a variable name is a one-line error", async () => {
    const dir = join(tmp, "bad")
    const steps = [
      { kind: "type", target, text: "", secretEnv: "A B" },
      { kind: "status", status: "complete" }
    ]
    const demo = {
      format: "core-demo",
      version: 1,
      demoId: "bad",
      taskId: "shop-wishlist-add-1",
      platform: "web",
      recordedWith: "recorder",
      steps: steps.map((action) => ({
        action,
        urlBefore: null,
        urlAfter: null,
        observation: { screenshot: null, elements: null, aria: null }
      })),
      blobs: {}
    }
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "demo.json"), JSON.stringify(demo))
    const error = await Effect.runPromise(Effect.flip(loadDemo(join(dir, "demo.json"), { tasks })))
    expect(error.path).toBe("steps[0].action.secretEnv")
  })
})
