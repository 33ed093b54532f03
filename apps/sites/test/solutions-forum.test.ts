/**
 * Every forum train instance's scripted solutions, every path
 * family, through the real web environment (Chromium, sites server, temp blob store), each
 * checked by its ground-truth checker (train posts of the popular family's templates are in
 * Popular posts, so every family applies); plus the held-out-only templates' scripts, which
 * the train runs never reach.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { forumSolutions, runSolutions } from "../solutions/mod.ts"
import { FORUM_SUITE_FILE } from "../suites/forum.ts"
import { loadSuite } from "../suites/Suite.ts"
import { describeSolutions } from "./solutionsHarness.ts"

const suite = await Effect.runPromise(loadSuite(FORUM_SUITE_FILE))
describeSolutions({ suite, scripts: forumSolutions })

describe("forum scripted solutions: the held-out templates", () => {
  test("the held-out-only templates' scripts pass on a held-out instance", async () => {
    const heldOutOnly = suite.templates.filter((t) => t.split === "held-out").map((t) => t.id)
    expect(heldOutOnly).toEqual(["forum-delete-post", "forum-post-author"])
    const firsts = () => heldOutOnly.map((id) => suite.tasks.find((t) => t.templateId === id)!)
    const r = await Effect.runPromise(runSolutions({ suite: "forum", instances: firsts }))
    expect(r.map((x) => `${x.instance} ${x.family}: ${x.outcome}`)).toEqual([
      "forum-delete-post-1 profile: pass",
      "forum-delete-post-1 search: pass",
      "forum-post-author-1 search: pass",
      "forum-post-author-1 board-browse: pass"
    ])
  }, 60_000)
})
