/**
 * Each instance of an app has its own port. A page that shows its own address (a permalink,
 * a "share this page" field) must still store the same blobs on every instance: the app's
 * origin is written as `{base}` in the elements, the accessibility tree and the title, while
 * the observation's URL stays whole (decisions read its path).
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { BlobStore } from "@core/blobstore"
import { find, startRuntime } from "./fixtures.ts"

// The origin is in the title, a link's address and a field's value, never in laid-out text:
// a port of another length would move the boxes, and the page would differ for real.
const page = (origin: string) => `<!doctype html><title>Page at ${origin}/notes</title>
  <h1>Notes</h1>
  <a href="${origin}/notes/7">Note 7</a>
  <label>Share <input value="${origin}/notes#top" style="width: 30em"></label>`

const serve = () => {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => new Response(page(new URL(req.url).origin), { headers: { "content-type": "text/html" } })
  })
  return { server, origin: `http://127.0.0.1:${server.port}` }
}
const one = serve()
const two = serve()
const rt = startRuntime()
afterAll(async () => {
  await rt.dispose()
  one.server.stop(true)
  two.server.stop(true)
})

const observe = (origin: string) =>
  rt.withEnv({ screenshots: "none", settleMs: 100 }, (env) =>
    Effect.gen(function* () {
      const first = yield* env.reset({ taskId: "notes", startUrl: `${origin}/notes` })
      const blobs = yield* BlobStore
      const text = (hash: string | null) =>
        hash === null ? Effect.succeed("") : Effect.map(blobs.get(hash), (b) => new TextDecoder().decode(b))
      return {
        observation: first.observation,
        link: find(first, "link", "Note 7"),
        share: find(first, "textbox", "Share"),
        elements: yield* text(first.observation.elements),
        aria: yield* text(first.observation.aria)
      }
    })
  )

test("the same page on two ports stores the same blobs, with {base} where the origin was", async () => {
  const a = await observe(one.origin)
  const b = await observe(two.origin)
  expect(one.origin).not.toBe(two.origin)
  expect(a.observation.url).toBe(`${one.origin}/notes`)
  expect(a.observation.title).toBe("Page at {base}/notes")
  expect(a.share.value).toBe("{base}/notes#top")
  expect(a.aria).toContain("{base}/notes/7")
  for (const blob of [a.elements, a.aria]) {
    expect(blob).toContain("{base}/notes")
    expect(blob).not.toContain(one.origin)
  }
  expect([b.observation.elements, b.observation.aria]).toEqual([a.observation.elements, a.observation.aria])
})
