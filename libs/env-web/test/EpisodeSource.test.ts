/**
 * Resets through an `EpisodeSource`: the environment opens the site episode itself and the
 * next one of the same site and seed ahead of time, which a later reset of that key takes
 * over (fresh context, nothing of the previous episode) and a reset of anything else discards.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import type { EpisodeSource } from "@core/environment"
import { startRuntime, startSite } from "./fixtures.ts"

const site = startSite()
afterAll(() => site.stop())

/** Episodes `<site>-<seed>-<n>`, landing on a page that prints its own id and its cookies. */
const recordingSource = () => {
  const opened: Array<string> = []
  const discarded: Array<string> = []
  const source: EpisodeSource = {
    open: async (name, seed) => {
      const episode = `${name}-${seed}-${opened.length + 1}`
      opened.push(episode)
      return { episode, startUrl: site.url(`/episode?${episode}`) }
    },
    discard: async (episode) => {
      discarded.push(episode)
    }
  }
  return { source, opened, discarded }
}

const settledAhead = (opened: ReadonlyArray<string>, count: number) =>
  Effect.promise(async () => {
    for (let i = 0; i < 200 && opened.length < count; i++) await Bun.sleep(25)
    // The page of the episode opened ahead navigates after `open` returns; give it time to land.
    await Bun.sleep(300)
  })

test("a reset takes the episode opened ahead for the same site and seed; another key discards it", async () => {
  const rt = startRuntime()
  const { source, opened, discarded } = recordingSource()
  try {
    await rt.withEnv({ episodes: source, screenshots: "none" }, (env) =>
      Effect.gen(function* () {
        const first = yield* env.reset({ taskId: "a", site: "shop", siteSeed: 7 })
        expect([first.episode, first.observation.error]).toEqual(["shop-7-1", null])
        expect(first.aria).toContain("episode shop-7-1 cookie:")
        // The episode sets a cookie; the one opened ahead must not see it (its own context).
        yield* env.step({ kind: "navigate", url: site.url("/cookie/set?mine") })
        yield* settledAhead(opened, 2)
        expect(opened).toEqual(["shop-7-1", "shop-7-2"])

        const second = yield* env.reset({ taskId: "b", site: "shop", siteSeed: 7 })
        expect(second.episode).toBe("shop-7-2")
        expect(second.aria).toContain("episode shop-7-2 cookie:")
        expect(second.aria).not.toContain("who=mine")
        // Ids restart with the new episode's first observation.
        expect(second.elements.map((e) => e.id)).toEqual(first.elements.map((e) => e.id))
        yield* settledAhead(opened, 3)

        const other = yield* env.reset({ taskId: "c", site: "shop", siteSeed: 8 })
        expect(other.episode).toBe("shop-8-4")
        expect(discarded).toEqual(["shop-7-3"])

        // A reset by URL ends the speculation too, and reports no site episode.
        yield* settledAhead(opened, 5)
        const byUrl = yield* env.reset({ taskId: "d", startUrl: site.url("/next") })
        expect([byUrl.episode, byUrl.observation.title]).toEqual([null, "Next"])
        expect(discarded).toEqual(["shop-7-3", "shop-8-5"])
      })
    )
    // Nothing was left opened ahead: the last reset was by URL.
    expect(opened.length).toBe(5)
  } finally {
    await rt.dispose()
  }
})

test("closing the environment discards the episode opened ahead", async () => {
  const rt = startRuntime({ prewarm: true })
  const { source, opened, discarded } = recordingSource()
  try {
    await rt.withEnv({ episodes: source, screenshots: "none" }, (env) =>
      Effect.gen(function* () {
        const first = yield* env.reset({ taskId: "a", site: "forum", siteSeed: 1 })
        expect(first.episode).toBe("forum-1-1")
      })
    )
    expect(opened).toEqual(["forum-1-1", "forum-1-2"])
    expect(discarded).toEqual(["forum-1-2"])
  } finally {
    await rt.dispose()
  }
})

test("without an episode source, a site task is an error observation naming what is missing", async () => {
  const rt = startRuntime()
  try {
    const obs = await rt.withEnv({}, (env) => env.reset({ taskId: "a", site: "shop", siteSeed: 1 }))
    expect([obs.episode, obs.observation.error]).toEqual([
      null,
      "the web platform needs a startUrl (or a site and siteSeed with an episode source)"
    ])
  } finally {
    await rt.dispose()
  }
})
