/**
 * Every forum template's checker against scripted HTTP runs on a real server: the scripted
 * solution passes, the same run stopped one step early fails, and a run with a wrong
 * value (board, post, title, answer…) fails.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { forum } from "../forum/mod.ts"
import { commentsOf, searchPosts } from "../forum/model.ts"
import { forumInitial } from "../forum/data.ts"
import type { ForumBase } from "../forum/types.ts"
import { FORUM_SUITE_FILE } from "../suites/forum.ts"
import { loadSuite } from "../suites/Suite.ts"
import { describeCheckers, finish, go, post, runner } from "./checkerHarness.ts"
import type { Script, Step } from "./checkerHarness.ts"
import { linksTo, textOf, withServer } from "./client.ts"

const env = withServer()
beforeAll(env.start)
afterAll(env.stop)
const suite = await Effect.runPromise(loadSuite(FORUM_SUITE_FILE))

const boardOf = (base: ForumBase, name: unknown) => base.boards.find((b) => b.name === name)!
const postOf = (base: ForumBase, title: unknown) => base.posts.find((p) => p.title === title)!
/** Search by title and open the post from the results, as a user would. */
const findPost =
  (title: string): Step =>
  async (b, out) => {
    const results = await b.get(`/forum/search?q=${encodeURIComponent(title)}`)
    out.finalUrl = (await b.get(linksTo(results, title)[0]!)).path
  }
/** Another seeded post (by the same kind of author) where `differs` holds, for wrong-value runs. */
const otherPost = (base: ForumBase, title: unknown, differs: (a: string, b: string) => boolean = (a, b) => a !== b): string => {
  const p = postOf(base, title)
  const mine = p.author === base.me
  return base.posts.find((x) => x.id !== p.id && (x.author === base.me) === mine && differs(x.id, p.id))!.title
}

const count = (base: ForumBase, id: string): number => commentsOf(forumInitial(base), id).length
const authorOf = (base: ForumBase, id: string): string => base.posts.find((p) => p.id === id)!.author

const scripts: Record<string, Script<ForumBase>> = {
  "forum-open-board": {
    solve: (p, base) => [go("/forum/"), go(`/forum/b/${boardOf(base, p.board).id}`)],
    wrong: (p, base) => ({ board: base.boards.find((b) => b.name !== p.board)!.name })
  },
  "forum-open-profile": {
    solve: (p) => [
      go("/forum/users"),
      async (b, out) => {
        out.finalUrl = (await b.get(linksTo(await b.get("/forum/users"), String(p.user))[0]!)).path
      }
    ],
    wrong: (p, base) => ({ user: base.users.find((u) => u.id !== p.user)!.id })
  },
  "forum-top-post": {
    solve: (p, base) => {
      const board = boardOf(base, p.board).id
      return [
        go("/forum/"),
        async (b, out) => {
          const results = await b.get(`/forum/search?q=${encodeURIComponent(String(p.topic))}&board=${board}&sort=top`)
          out.finalUrl = (await b.get(results.text.match(/href="(\/forum\/post\/p\d+)"/)![1]!)).path
        }
      ]
    },
    // The second-best hit instead.
    wrong: {
      run: (p, base) => {
        const second = searchPosts(forumInitial(base), { q: String(p.topic), board: boardOf(base, p.board).id, sort: "top" })[1]!
        return [go("/forum/"), go(`/forum/post/${second.id}`)]
      }
    }
  },
  "forum-create-post": {
    solve: (p, base) => {
      const board = boardOf(base, p.board).id
      return [
        go(`/forum/b/${board}`),
        go(`/forum/submit?board=${board}`),
        post("/forum/submit", { board, title: String(p.title), body: String(p.body) })
      ]
    },
    wrong: (p, base) => ({ ...p, board: base.boards.find((b) => b.name !== p.board)!.name })
  },
  "forum-comment": {
    solve: (p, base) => [findPost(String(p.post)), post(`/forum/post/${postOf(base, p.post).id}/comments`, { body: String(p.comment) })],
    wrong: (p, base) => ({ ...p, post: otherPost(base, p.post) })
  },
  "forum-upvote": {
    solve: (p, base) => {
      const id = postOf(base, p.post).id
      return [findPost(String(p.post)), post("/forum/vote", { kind: "post", id, dir: "up", return: `/post/${id}` })]
    },
    wrong: (p, base) => ({ post: otherPost(base, p.post) })
  },
  "forum-edit-title": {
    solve: (p, base) => {
      const mine = postOf(base, p.myPost)
      return [
        go(`/forum/u/${base.me}`),
        go(`/forum/post/${mine.id}`),
        go(`/forum/post/${mine.id}/edit`),
        post(`/forum/post/${mine.id}/edit`, { title: String(p.title), body: mine.body })
      ]
    },
    wrong: (p) => ({ ...p, title: `${p.title}!` })
  },
  "forum-delete-post": {
    solve: (p, base) => {
      const id = postOf(base, p.myPost).id
      return [go(`/forum/u/${base.me}`), go(`/forum/post/${id}`), go(`/forum/post/${id}/delete`), post(`/forum/post/${id}/delete`, {})]
    },
    // Another of the signed-in user's posts.
    wrong: (p, base) => ({ myPost: otherPost(base, p.myPost) })
  },
  "forum-comment-count": {
    solve: (p) => {
      let n = ""
      return [
        async (b, out) => {
          await findPost(String(p.post))(b, out)
          n = textOf(await b.get(out.finalUrl!)).match(/Comments \((\d+)\)/)![1]!
        },
        async (b, out) => finish("complete", `It has ${n} comments.`)(b, out)
      ]
    },
    wrong: (p, base) => ({ post: otherPost(base, p.post, (a, b) => count(base, a) !== count(base, b)) })
  },
  "forum-post-author": {
    solve: (p) => {
      let author = ""
      return [
        async (b, out) => {
          await findPost(String(p.post))(b, out)
          author = (await b.get(out.finalUrl!)).text.match(/<h1 id="post-title">[\s\S]*?href="\/forum\/u\/([^"]+)"/)![1]!
        },
        async (b, out) => finish("complete", `It was posted by ${author}.`)(b, out)
      ]
    },
    wrong: (p, base) => ({ post: otherPost(base, p.post, (a, b) => authorOf(base, a) !== authorOf(base, b)) })
  },
  "forum-missing-board": {
    solve: () => [go("/forum/"), go("/forum/submit"), finish("infeasible")],
    // Posting the title somewhere else and calling it done.
    wrong: {
      run: (p, base) => [
        go("/forum/submit"),
        post("/forum/submit", { board: base.boards[0]!.id, title: String(p.title), body: "Could not find the board." }),
        finish("complete")
      ]
    }
  }
}

const run = runner(env, "forum")

describe("forum checkers: solved passes, truncated fails, wrong value fails", () => {
  describeCheckers("forum", suite, scripts, (seed) => forum.base(seed), run)

  test("the infeasible template passes only with status infeasible", async () => {
    const task = suite.tasks.find((t) => t.category === "infeasible")!
    expect((await run(task, [go("/forum/"), finish("infeasible")])).success).toBe(true)
    for (const status of ["complete", null] as const)
      expect((await run(task, [go("/forum/"), finish(status, "Posted it.")])).success).toBe(false)
  })

  test("an answer task reported infeasible fails", async () => {
    const task = suite.tasks.find((t) => t.templateId === "forum-post-author")!
    const v = await run(task, [
      finish("infeasible", authorOf(forum.base(task.siteSeed), postOf(forum.base(task.siteSeed), task.parameters.post).id))
    ])
    expect(v).toMatchObject({ success: false, reason: "the task is feasible, but the agent reported it infeasible" })
  })
})
