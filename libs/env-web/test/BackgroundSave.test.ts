/**
 * An app that saves in the background, out of the page's sight (here a timer; in a real app a
 * shared worker's sync): an episode that ends at once closes its page before the save is
 * sent, and the change is lost. With the task's `pageSaveMs` the page stays open that long
 * after the episode's last action, so the save reaches the server.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import type { EnvTask } from "@core/environment"
import { find, startRuntime, target } from "./fixtures.ts"

const SAVE_AFTER_MS = 3000
const page = `<!doctype html><title>Notes</title><body><button type="button" onclick="
  this.textContent = 'Saved';
  setTimeout(() => fetch('/save', { method: 'POST' }), ${SAVE_AFTER_MS})">Save note</button></body>`
let saves = 0
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (req) => {
    if (new URL(req.url).pathname === "/save") saves++
    return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } })
  }
})
const startUrl = `http://127.0.0.1:${server.port}/`
const rt = startRuntime()
afterAll(async () => {
  await rt.dispose()
  server.stop(true)
})

/** Clicks "Save note", ends the episode, and reports how many saves the server got once the environment is closed. */
const saveAndEnd = (task: Partial<EnvTask>) =>
  rt.withEnv({ screenshots: "none" }, (env) =>
    Effect.gen(function* () {
      saves = 0
      const first = yield* env.reset({ taskId: "notes", startUrl, ...task })
      const clicked = yield* env.step({ kind: "click", target: target(find(first, "button", "Save note")) })
      expect(clicked.aria).toContain("Saved")
      yield* env.step({ kind: "status", status: "complete" })
      yield* env.close()
      return saves
    })
  )

test("an episode that ends closes its page at once by default; with pageSaveMs the background save is made first", async () => {
  expect(await saveAndEnd({})).toBe(0)
  expect(await saveAndEnd({ pageSaveMs: SAVE_AFTER_MS + 2000 })).toBe(1)
}, 60000)
