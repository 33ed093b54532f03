/** Forum checker helpers over the state API. EVALUATION CODE ONLY (see ./state.ts). */
import type { Comment, ForumBase, ForumState, Post, VoteKind } from "../forum/types.ts"
import { fetchState } from "./state.ts"
import type { Snapshot, StateApi } from "./state.ts"

export const forumState = (api: StateApi, tenant: string): Promise<Snapshot<ForumState, ForumBase>> =>
  fetchState<ForumState, ForumBase>(api, tenant, { base: true })

/** A live post by exact title (case-insensitive), or undefined. */
export const postByTitle = (s: ForumState, title: string): Post | undefined =>
  s.posts.find((p) => p.title.toLowerCase() === title.toLowerCase())

/** The signed-in user's vote on an item: 1, -1, or 0 for none. */
export const voteOn = (s: ForumState, kind: VoteKind, id: string): 0 | 1 | -1 =>
  s.votes.find((v) => v.kind === kind && v.id === id)?.value ?? 0

/** Comments the signed-in user wrote on a post, oldest first (seeded ones included). */
export const myCommentsOn = (s: ForumState, postId: string): ReadonlyArray<Comment> =>
  s.comments.filter((c) => c.postId === postId && c.author === s.me)

/** Posts the signed-in user created in this episode (ids beyond the seeded ones), oldest first. */
export const newPosts = (s: ForumState, base: ForumBase): ReadonlyArray<Post> =>
  s.posts.filter((p) => !base.posts.some((b) => b.id === p.id))

export const wasDeleted = (s: ForumState, postId: string): boolean => s.deletedPostIds.includes(postId)

/** Sum of the scores of a user's live posts and comments, as the profile shows it. */
export const karma = (s: ForumState, userId: string): number =>
  s.posts.filter((p) => p.author === userId).reduce((n, p) => n + p.score, 0) +
  s.comments.filter((c) => c.author === userId).reduce((n, c) => n + c.score, 0)
