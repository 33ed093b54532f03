/** Read-side helpers and the few write rules shared by the pages: lookups, sorting, search, paging, votes, karma, validation. */
import type { Comment, ForumBase, ForumState, Post, User, Vote, VoteKind } from "./types.ts"
import { paginate as paginateBy } from "../framework/paging.ts"
import type { Paged } from "../framework/paging.ts"

export const PAGE_SIZE = 10
export const TITLE_MAX = 120
export const BODY_MAX = 4000
export const COMMENT_MAX = 1000

export const boardById = (base: ForumBase, id: string) => base.boards.find((b) => b.id === id)
export const boardName = (base: ForumBase, id: string): string => boardById(base, id)?.name ?? id
export const userById = (base: ForumBase, id: string): User | undefined => base.users.find((u) => u.id === id)
export const postById = (state: ForumState, id: string): Post | undefined => state.posts.find((p) => p.id === id)
export const commentById = (state: ForumState, id: string): Comment | undefined => state.comments.find((c) => c.id === id)
export const commentsOf = (state: ForumState, postId: string): Array<Comment> => state.comments.filter((c) => c.postId === postId)

export const formatDate = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC"

export const SORTS = { new: "Newest", top: "Top score", relevance: "Relevance" } as const
export type Sort = keyof typeof SORTS
export const parseSort = (s: string | null, allowed: ReadonlyArray<Sort>, fallback: Sort): Sort =>
  s !== null && (allowed as ReadonlyArray<string>).includes(s) ? (s as Sort) : fallback

/** New: newest first; top: highest score first; ties fall back to newest, then id, so order is stable. */
export const sortPosts = (posts: ReadonlyArray<Post>, sort: Sort, relevance?: (p: Post) => number): Array<Post> => {
  const newest = (a: Post, b: Post): number => b.createdAt - a.createdAt || Number(b.id.slice(1)) - Number(a.id.slice(1))
  const by: Record<Sort, (a: Post, b: Post) => number> = {
    new: newest,
    top: (a, b) => b.score - a.score || newest(a, b),
    relevance: (a, b) => (relevance ? relevance(b) - relevance(a) : 0) || newest(a, b)
  }
  return [...posts].sort(by[sort])
}

/** The home page's Popular posts: the highest-scored. */
export const popularPosts = (posts: ReadonlyArray<Post>, count = 5): Array<Post> => sortPosts(posts, "top").slice(0, count)

export interface Filters {
  readonly q: string
  readonly board: string
  readonly sort: Sort
}

export const parseFilters = (q: URLSearchParams): Filters => ({
  q: (q.get("q") ?? "").trim(),
  board: q.get("board") ?? "",
  sort: parseSort(q.get("sort"), ["relevance", "new", "top"], "relevance")
})

/** Every term must appear in the title (3 points) or the body (1 point). */
const relevance = (p: Post, terms: ReadonlyArray<string>): number => {
  const title = p.title.toLowerCase()
  const body = p.body.toLowerCase()
  let s = 0
  for (const t of terms) {
    if (title.includes(t)) s += 3
    else if (body.includes(t)) s += 1
    else return 0
  }
  return s
}

export const searchPosts = (state: ForumState, f: Filters): Array<Post> => {
  const terms = f.q.toLowerCase().split(/\s+/).filter(Boolean)
  const score = (p: Post): number => (terms.length === 0 ? 1 : relevance(p, terms))
  return sortPosts(
    state.posts.filter((p) => score(p) > 0 && (f.board === "" || p.boardId === f.board)),
    f.sort,
    score
  )
}

export type { Paged } from "../framework/paging.ts"

/** A page of a list, at this site's page size. */
export const paginate = <T>(items: ReadonlyArray<T>, pageParam: string | null): Paged<T> => paginateBy(items, pageParam, PAGE_SIZE)

/** Sum of the scores of a user's live posts and comments. */
export const karmaOf = (state: ForumState, userId: string): number =>
  state.posts.filter((p) => p.author === userId).reduce((s, p) => s + p.score, 0) +
  state.comments.filter((c) => c.author === userId).reduce((s, c) => s + c.score, 0)

export const myVote = (state: ForumState, kind: VoteKind, id: string): 0 | 1 | -1 =>
  state.votes.find((v) => v.kind === kind && v.id === id)?.value ?? 0

/**
 * One vote per item: voting the same way again takes the vote back, voting the other way switches it.
 * The item's score moves by the difference, so it always equals the others' votes plus this user's.
 */
export const castVote = (state: ForumState, kind: VoteKind, id: string, dir: 1 | -1): boolean => {
  const item = kind === "post" ? postById(state, id) : commentById(state, id)
  if (!item) return false
  const before = myVote(state, kind, id)
  const after = before === dir ? 0 : dir
  item.score += after - before
  state.votes = state.votes.filter((v) => !(v.kind === kind && v.id === id))
  if (after !== 0) state.votes.push({ kind, id, value: after } satisfies Vote)
  return true
}

export type Errors = Readonly<Record<string, string>>

export const validatePost = (v: { title: string; body: string; board?: string }, base: ForumBase): Record<string, string> => {
  const errors: Record<string, string> = {}
  if (v.board !== undefined && !boardById(base, v.board)) errors.board = "Choose a board."
  if (v.title === "") errors.title = "Enter a title."
  else if (v.title.length > TITLE_MAX) errors.title = `Keep the title to ${TITLE_MAX} characters or fewer.`
  if (v.body === "") errors.body = "Write the body of your post."
  else if (v.body.length > BODY_MAX) errors.body = `Keep the post to ${BODY_MAX} characters or fewer.`
  return errors
}

export const validateComment = (body: string): string | undefined =>
  body === ""
    ? "Write a comment before posting."
    : body.length > COMMENT_MAX
      ? `Keep comments to ${COMMENT_MAX} characters or fewer (yours has ${body.length}).`
      : undefined

/** The episode's clock: each new item is a minute after the last, so content stays a pure function of the actions. */
export const tick = (state: ForumState): number => (state.clock += 60_000)
