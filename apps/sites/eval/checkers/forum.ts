/**
 * Ground-truth checkers for the forum suite. EVALUATION CODE ONLY: they read the episode's
 * state (and its seeded forum) through the state API, and the agent's final URL, answer
 * and status; policies and label functions never see them (tests/boundaries.test.ts).
 */
import { commentsOf, searchPosts } from "../../forum/model.ts"
import type { Board, ForumBase, ForumState, Post } from "../../forum/types.ts"
import { forumState, newPosts, voteOn, wasDeleted } from "../forum.ts"
import type { CheckInput, Checker, Verdict } from "./types.ts"
import { answered, endedOn, fail, pass, same } from "./verdicts.ts"

const snapshot = async (input: CheckInput): Promise<{ state: ForumState; base: ForumBase }> => {
  const snap = await forumState(input.api, input.tenant)
  return { state: snap.state, base: snap.base! }
}

const param = (input: CheckInput, name: string): string => String(input.parameters[name])

/** A seeded post by its exact title (ids are stable, titles may be edited in the episode). */
const seededPost = (base: ForumBase, title: string): Post => {
  const p = base.posts.find((x) => x.title === title)
  if (!p) throw new Error(`no post titled '${title}' in the forum of seed ${base.seed}`)
  return p
}

const boardNamed = (base: ForumBase, name: string): Board => {
  const b = base.boards.find((x) => x.name === name)
  if (!b) throw new Error(`no board '${name}' in the forum of seed ${base.seed}`)
  return b
}

/** The post with this seeded id in the live state, or a failing verdict when it is gone. */
const live = (state: ForumState, p: Post): Post | Verdict =>
  state.posts.find((x) => x.id === p.id) ?? fail(`post ${p.id} ('${p.title}') was deleted`)

export const forumCheckers = {
  "forum.url-board": async (input) => {
    const { base } = await snapshot(input)
    const b = boardNamed(base, param(input, "board"))
    return endedOn(input, `/forum/b/${b.id}`, `the ${b.name} board`)
  },
  "forum.url-user": async (input) => {
    const { base } = await snapshot(input)
    const u = base.users.find((x) => x.id === param(input, "user"))
    if (!u) throw new Error(`no member '${param(input, "user")}' in the forum of seed ${base.seed}`)
    return endedOn(input, `/forum/u/${u.id}`, `${u.id}'s profile`)
  },
  "forum.url-top-post": async (input) => {
    const { base, state } = await snapshot(input)
    const b = boardNamed(base, param(input, "board"))
    const top = searchPosts(state, { q: param(input, "topic"), board: b.id, sort: "top" })[0]
    if (!top) return fail(`no post about '${param(input, "topic")}' is left in ${b.name}`)
    return endedOn(
      input,
      `/forum/post/${top.id}`,
      `'${top.title}' (score ${top.score}), the top post about ${param(input, "topic")} in ${b.name}`
    )
  },
  "forum.new-post": async (input) => {
    const { base, state } = await snapshot(input)
    const b = boardNamed(base, param(input, "board"))
    const [title, body] = [param(input, "title"), param(input, "body")]
    const made = newPosts(state, base)
    if (made.length === 0) return fail("no post was created")
    const match = made.find((p) => p.boardId === b.id && same(p.title, title) && same(p.body, body))
    if (match)
      return made.length === 1
        ? pass(`post ${match.id} '${title}' created in ${b.name}`)
        : fail(`the post was created, but ${made.length - 1} other posts too`)
    const p = made[0]!
    return fail(
      `created '${p.title}' in ${p.boardId} with body '${p.body.slice(0, 60)}'; wanted '${title}' in ${b.id} with body '${body.slice(0, 60)}'`
    )
  },
  "forum.comment": async (input) => {
    const { base, state } = await snapshot(input)
    const p = seededPost(base, param(input, "post"))
    const want = param(input, "comment")
    const mine = state.comments.filter((c) => c.author === state.me && !base.comments.some((b) => b.id === c.id))
    if (mine.length === 0) return fail("no comment was posted")
    const match = mine.find((c) => c.postId === p.id && same(c.body, want))
    if (match) return pass(`comment ${match.id} posted on '${p.title}'`)
    return fail(
      `comments posted: ${mine.map((c) => `'${c.body.slice(0, 40)}' on ${c.postId}`).join(", ")}; wanted '${want}' on ${p.id} ('${p.title}')`
    )
  },
  "forum.upvote": async (input) => {
    const { base, state } = await snapshot(input)
    const p = seededPost(base, param(input, "post"))
    const vote = voteOn(state, "post", p.id)
    if (vote !== 1) return fail(`post '${p.title}' is ${vote === -1 ? "downvoted" : "not voted on"} (votes cast: ${state.votes.length})`)
    const others = state.votes.filter((v) => v.kind === "post" && v.id !== p.id)
    return others.length > 0
      ? fail(`upvoted '${p.title}', but also voted on ${others.map((v) => v.id).join(", ")}`)
      : pass(`upvoted '${p.title}'`)
  },
  "forum.edit-title": async (input) => {
    const { base, state } = await snapshot(input)
    const seeded = seededPost(base, param(input, "myPost"))
    const p = live(state, seeded)
    if (!("id" in p)) return p
    const want = param(input, "title")
    if (p.title.trim() !== want) return fail(`post ${p.id} is titled '${p.title}', not '${want}'`)
    return p.body === seeded.body ? pass(`post ${p.id} retitled '${want}'`) : fail("the title changed, but the body changed too")
  },
  "forum.deleted": async (input) => {
    const { base, state } = await snapshot(input)
    const p = seededPost(base, param(input, "myPost"))
    if (!wasDeleted(state, p.id)) return fail(`post '${p.title}' was not deleted (deleted: ${state.deletedPostIds.join(", ") || "none"})`)
    const others = state.deletedPostIds.filter((id) => id !== p.id)
    return others.length > 0 ? fail(`deleted '${p.title}', but also ${others.join(", ")}`) : pass(`deleted '${p.title}'`)
  },
  "forum.answer-comment-count": async (input) => {
    const a = answered(input)
    if (typeof a !== "string") return a
    const { base, state } = await snapshot(input)
    const count = commentsOf(state, seededPost(base, param(input, "post")).id).length
    const said = /\b(no|zero|none)\b/i.test(a) ? 0 : [...a.matchAll(/\d+/g)].map((m) => Number(m[0]))[0]
    return said === count ? pass(`answer gives ${count}`) : fail(`answer '${a}' does not give the count ${count}`)
  },
  "forum.answer-author": async (input) => {
    const a = answered(input)
    if (typeof a !== "string") return a
    const { base } = await snapshot(input)
    const author = seededPost(base, param(input, "post")).author
    return new RegExp(`(^|[^a-z0-9])${author}($|[^a-z0-9])`, "i").test(a)
      ? pass(`answer names ${author}`)
      : fail(`answer '${a}' does not name the author ${author}`)
  },
  "forum.infeasible": async (input) => {
    if (input.status !== "infeasible")
      return fail(`the forum cannot do this: expected status infeasible, got ${input.status ?? "no status"}`)
    const { base, state } = await snapshot(input)
    return newPosts(state, base).length > 0 ? fail("reported infeasible, but created a post anyway") : pass("reported infeasible")
  }
} satisfies Record<string, Checker>
