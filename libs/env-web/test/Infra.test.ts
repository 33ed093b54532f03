import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { BrowserPool } from "../BrowserPool.ts"
import { chromiumChildren, find, startRuntime, startSite, target } from "./fixtures.ts"

const site = startSite()
afterAll(() => site.stop())

const noChromiumLeft = async () => {
  for (let i = 0; i < 40 && chromiumChildren().length > 0; i++) await Bun.sleep(100)
  expect(chromiumChildren()).toEqual([])
}

test("a killed browser is a retryable InfraError, and the next reset relaunches it", async () => {
  const rt = startRuntime()
  try {
    await rt.withEnv({ screenshots: "none" }, (env) =>
      Effect.gen(function* () {
        const obs = yield* env.reset({ taskId: "t", startUrl: site.url("/form") })
        const [browser] = chromiumChildren()
        // The whole process group, as a crash or the OOM killer would leave it.
        process.kill(-browser!, "SIGKILL")
        const error = yield* Effect.flip(env.step({ kind: "click", target: target(find(obs, "button", "Press me")) }))
        expect(error._tag).toBe("InfraError")
        expect(error.retryable).toBe(true)
        expect(error.message).not.toContain("\n")

        const again = yield* env.reset({ taskId: "t", startUrl: site.url("/form") })
        expect(again.observation.error).toBeNull()
        const clicked = yield* env.step({ kind: "click", target: target(find(again, "button", "Press me")) })
        expect(find(clicked, "button", "Clicked")).toBeDefined()
        expect(yield* BrowserPool.use((pool) => pool.launches)).toBe(2)
      })
    )
  } finally {
    await rt.dispose()
  }
  await noChromiumLeft()
})

test("parallel episodes share the browser but not cookies; --screenshots none stores no PNG", async () => {
  const rt = startRuntime()
  try {
    const cookieOf = (who: string, path: string) =>
      rt.withEnv({ screenshots: "none" }, (env) =>
        Effect.gen(function* () {
          yield* env.reset({ taskId: who, startUrl: site.url(path) })
          const shown = yield* env.step({ kind: "navigate", url: site.url("/cookie/show") })
          return /cookie:[^"\s]*/.exec(shown.aria)?.[0]
        })
      )
    const [a, b] = await Promise.all([cookieOf("a", "/cookie/set?alice"), cookieOf("b", "/cookie/set?bob")])
    expect(a).toBe("cookie:who=alice")
    expect(b).toBe("cookie:who=bob")
    expect(await cookieOf("c", "/")).toBe("cookie:")
    expect(await rt.runtime.runPromise(BrowserPool.use((pool) => pool.launches))).toBe(1)

    const blobs = Array.from(new Bun.Glob("*/*").scanSync({ cwd: rt.dir }))
    expect(blobs.length).toBeGreaterThan(0)
    for (const blob of blobs) {
      expect(Array.from(readFileSync(join(rt.dir, blob)).subarray(1, 4))).not.toEqual([0x50, 0x4e, 0x47])
    }
  } finally {
    await rt.dispose()
  }
  await noChromiumLeft()
})

test("a pre-warmed pool hands out fresh contexts, and a reset without a startUrl is an error observation", async () => {
  const rt = startRuntime({ prewarm: true })
  try {
    await rt.withEnv({}, (env) =>
      Effect.gen(function* () {
        const first = yield* env.reset({ taskId: "t", startUrl: site.url("/cookie/set?x") })
        expect(first.observation.error).toBeNull()
        const second = yield* env.reset({ taskId: "t", app: "com.example" })
        expect(second.observation.error).toBe("the web platform needs a startUrl (or a site and siteSeed with an episode source)")
        const third = yield* env.reset({ taskId: "t", startUrl: site.url("/cookie/show") })
        expect(third.aria).toContain("cookie:")
        expect(third.aria).not.toContain("who=x")
      })
    )
  } finally {
    await rt.dispose()
  }
  await noChromiumLeft()
})
