/** The forum's data: `ForumBase` is seed-derived and shared, `ForumState` is one episode's own (what checkers read). */

export interface Board {
  /** Also the URL slug: /forum/b/<id>. */
  readonly id: string
  readonly name: string
  readonly description: string
}

export interface User {
  /** The username, also the URL slug: /forum/u/<id>. */
  readonly id: string
  readonly displayName: string
  readonly bio: string
}

export interface Post {
  /** "p1", "p2", … (seeded), then "p81", … for posts made in the episode. */
  readonly id: string
  boardId: string
  /** A user id. */
  readonly author: string
  title: string
  body: string
  /** Milliseconds since the epoch, from the seed (never the clock). */
  readonly createdAt: number
  /** Net votes, including the signed-in user's own vote. */
  score: number
  edited: boolean
}

export interface Comment {
  /** "c1", "c2", … */
  readonly id: string
  readonly postId: string
  /** A top-level comment's id for a reply, null for a top-level comment (threads are one level deep). */
  readonly parentId: string | null
  readonly author: string
  readonly body: string
  readonly createdAt: number
  score: number
}

export type VoteKind = "post" | "comment"

/** The signed-in user's vote on one item; at most one per item. */
export interface Vote {
  readonly kind: VoteKind
  readonly id: string
  value: 1 | -1
}

export interface ForumBase {
  readonly seed: number
  readonly boards: ReadonlyArray<Board>
  readonly users: ReadonlyArray<User>
  readonly posts: ReadonlyArray<Post>
  readonly comments: ReadonlyArray<Comment>
  /** The episode's signed-in user (one of `users`). */
  readonly me: string
}

export interface ForumState {
  /** The signed-in user's id. */
  readonly me: string
  /** Every live post, seeded and new, oldest first (deleted ones are gone). */
  posts: Array<Post>
  /** Every live comment, oldest first. */
  comments: Array<Comment>
  votes: Array<Vote>
  /** Ids of posts deleted in this episode. */
  deletedPostIds: Array<string>
  /** Next ids and the episode's own clock for new items (deterministic). */
  nextPost: number
  nextComment: number
  clock: number
}
