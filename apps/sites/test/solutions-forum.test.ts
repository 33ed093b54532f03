/**
 * Every forum train template's scripted solutions, one train instance per template, all path
 * families, through the real web environment (Chromium, sites server, temp blob store), each
 * checked by its ground-truth checker; plus the popular family on posts that are in Popular
 * posts, and the held-out-only templates' scripts, which the train runs never reach.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { forumBase, forumInitial } from "../forum/data.ts"
import { sortPosts } from "../forum/model.ts"
import { forumSolutions, runSolutions } from "../solutions/mod.ts"
import { FORUM_SUITE_FILE } from "../suites/forum.ts"
import { loadSuite } from "../suites/Suite.ts"
import type { SuiteTask } from "../suites/Suite.ts"
import { describeSolutions } from "./solutionsHarness.ts"

const suite = await Effect.runPromise(loadSuite(FORUM_SUITE_FILE))
// Popular posts are the five top-scored posts of a seed; no train instance's post is among them (checked below on one that is).
describeSolutions({ suite, scripts: forumSolutions, mayNotApply: ["popular"] })

describe("forum scripted solutions: the popular family and the held-out templates", () => {
  test("the popular family passes on a post that is in Popular posts", async () => {
    const popularOf = (seed: number): string => {
      const base = forumBase(seed)
      return sortPosts(forumInitial(base).posts, "top").slice(0, 5).find((p) => p.author !== base.me)!.title
    }
    const popular = (tasks: ReadonlyArray<SuiteTask>) =>
      tasks.filter((t) => t.id === "forum-comment-1" || t.id === "forum-upvote-1").map((t) => ({ ...t, parameters: { ...t.parameters, post: popularOf(t.siteSeed) } }))
    const r = await Effect.runPromise(runSolutions({ suite: "forum", instances: popular }))
    const title = popularOf(201)
    expect(r.filter((x) => x.family === "popular").map((x) => [x.instance, x.outcome, x.reason.replace(/c\d+/, "cN")])).toEqual([
      ["forum-comment-1", "pass", `comment cN posted on '${title}'`],
      ["forum-upvote-1", "pass", `upvoted '${title}'`]
    ])
  }, 60_000)

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
