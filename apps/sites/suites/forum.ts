/**
 * The forum suite, generated from the seeded forum so every parameter exists in its
 * instance's seed. `forum.json` is this generator's output (a test keeps the two equal);
 * after changing either the generator or the forum's data, rewrite it with
 * `bun apps/sites/suites/forum.ts`.
 */
import { join } from "node:path"
import { forumBase, forumInitial } from "../forum/data.ts"
import { commentsOf, popularPosts, searchPosts } from "../forum/model.ts"
import type { ForumBase, Post } from "../forum/types.ts"
import { rng } from "../framework/prng.ts"
import type { Rng } from "../framework/prng.ts"
import type { PathFamily, SuiteFile } from "./Suite.ts"
import { generateSuite, suiteJson, writeSuite } from "./Generator.ts"
import type { InstanceSlot, Params, StartPage, TemplateSpec } from "./Generator.ts"

type Spec = TemplateSpec<ForumBase>

/** Instance k of every template: its seed and split. The held-out seed gives unseen parameter values. */
const INSTANCES: ReadonlyArray<InstanceSlot> = [
  { seed: 201, split: "train" },
  { seed: 202, split: "train" },
  { seed: 203, split: "held-out" }
]

const fam = (id: string, description: string): PathFamily => ({ id, description })
const SEARCH = fam("search", "search for the post by its title, then open it from the results")
const BOARD = fam("board-browse", "open the post's board from the home page and find it in the listing (sorting or paging as needed)")
const PROFILE = fam("profile", "open the author's (or your own) profile and find the post among their posts")
const POPULAR = fam("popular", "open it from the home page's Popular posts when it is there")

/** The k-th of a fixed shuffle of the boards, so the three instances name three different ones. */
const board = (base: ForumBase, id: string, k: number): string => rng(0, id).shuffle(base.boards)[k]!.name
/** A seeded post not by the signed-in user (their own posts are for edit/delete tasks). */
const othersPost = (base: ForumBase, r: Rng): Post => r.pick(base.posts.filter((p) => p.author !== base.me))
/** Train instances of a template with the popular family name a post in the home page's Popular posts, so every family of theirs applies; held-out ones any post. */
const othersPostFor = (base: ForumBase, r: Rng, k: number): Post => {
  const popular = popularPosts(forumInitial(base).posts).filter((p) => p.author !== base.me)
  return k < 2 && popular.length > 0 ? r.pick(popular) : othersPost(base, r)
}
const myPost = (base: ForumBase, r: Rng): Post => r.pick(base.posts.filter((p) => p.author === base.me))

/** Search keywords per board (the seeded topics); a topic is used only when it matches several posts of its board. */
const TOPICS: Readonly<Record<string, ReadonlyArray<string>>> = {
  gardening: [
    "tomatoes",
    "compost",
    "raised beds",
    "seed starting",
    "succulents",
    "roses",
    "herb gardens",
    "mulch",
    "pruning shears",
    "drip irrigation"
  ],
  cooking: [
    "sourdough",
    "cast iron pans",
    "knife sharpening",
    "stock",
    "fermentation",
    "meal prep",
    "spice blends",
    "pasta dough",
    "rice cookers",
    "braising"
  ],
  cycling: [
    "tubeless tires",
    "bike commuting",
    "chain wear",
    "saddles",
    "gravel bikes",
    "bike locks",
    "winter riding",
    "cleats",
    "panniers",
    "disc brakes"
  ],
  programming: [
    "unit tests",
    "code review",
    "type systems",
    "git rebasing",
    "regular expressions",
    "database indexes",
    "side projects",
    "pair programming",
    "logging",
    "dependency updates"
  ],
  books: [
    "fantasy series",
    "audiobooks",
    "library holds",
    "book clubs",
    "poetry",
    "science fiction",
    "memoirs",
    "e-readers",
    "classic novels",
    "short stories"
  ],
  photography: [
    "prime lenses",
    "film cameras",
    "street photography",
    "tripods",
    "night skies",
    "portrait lighting",
    "photo editing",
    "bird photography",
    "composition",
    "camera bags"
  ]
}

/** A (board, topic) whose search in that board has at least two hits and one clear top score. */
const topicSearch = (base: ForumBase, r: Rng): Params => {
  const state = forumInitial(base)
  const options = r.shuffle(base.boards).flatMap((b) => r.shuffle(TOPICS[b.id] ?? []).map((topic) => ({ b, topic })))
  for (const { b, topic } of options) {
    const hits = searchPosts(state, { q: topic, board: b.id, sort: "top" })
    if (hits.length >= 2 && hits[0]!.score > hits[1]!.score) return { topic, board: b.name }
  }
  throw new Error(`no topic with a clear top post in seed ${base.seed}`)
}

const TITLES = [
  "Weekly check-in thread",
  "What I learned this month",
  "A small win worth sharing",
  "Looking for a beginner buddy",
  "Roundup of my favourite tools"
]
const BODIES = [
  "Share what you have been up to lately.",
  "Here is a short summary of what worked for me and what did not.",
  "Happy to answer questions in the comments."
]
const COMMENTS = [
  "Thanks, this helped me a lot!",
  "I had the same question, following.",
  "Great write-up, bookmarked.",
  "Have you tried asking in the weekly thread?"
]
const NEW_TITLES = [
  "Update: what changed since I posted",
  "Solved, thanks everyone",
  "Revisited after a month",
  "Follow-up with more details"
]
const UNKNOWN_BOARDS = ["Knitting", "Astronomy", "Woodworking", "Chess", "Birdwatching"]

const specs: ReadonlyArray<Spec> = [
  {
    id: "forum-open-board",
    category: "navigation",
    split: "train",
    checker: "forum.url-board",
    instruction: "Open the {board} board.",
    pathFamilies: [
      fam("home", "follow the board's link on the home page"),
      fam("breadcrumb", "open any post of the board and follow its breadcrumb")
    ],
    make: (base, _r, k) => ({ board: board(base, "forum-open-board", k) })
  },
  {
    id: "forum-open-profile",
    category: "navigation",
    split: "train",
    checker: "forum.url-user",
    instruction: "Open the profile page of the member {user}.",
    pathFamilies: [
      fam("members", "open Browse all members from the home page and follow the member's link"),
      fam("author-link", "open a post or comment by the member and follow their name"),
      fam("direct-url", "type the profile URL /forum/u/<username>")
    ],
    make: (base, r) => ({ user: r.pick(base.users.filter((u) => u.id !== base.me)).id })
  },
  {
    id: "forum-top-post",
    category: "search",
    split: "train",
    checker: "forum.url-top-post",
    instruction: "Find the highest-scored post about {topic} in the {board} board and open it.",
    pathFamilies: [
      fam("search-filter", "search for the topic filtered to the board, sorted by top score"),
      fam("board-top", "open the board sorted by top score and scan titles for the topic")
    ],
    make: (base, r) => topicSearch(base, r)
  },
  {
    id: "forum-create-post",
    category: "form",
    split: "train",
    checker: "forum.new-post",
    instruction: 'Create a post in the {board} board titled "{title}" with the body "{body}".',
    pathFamilies: [
      fam("board-link", "open the board and follow Create a post in it"),
      fam("submit-form", "open the Create post form directly and choose the board")
    ],
    make: (base, r, k) => ({ board: board(base, "forum-create-post", k), title: r.pick(TITLES), body: r.pick(BODIES) })
  },
  {
    id: "forum-comment",
    category: "transaction",
    split: "train",
    checker: "forum.comment",
    instruction: 'Post the comment "{comment}" on the post "{post}".',
    pathFamilies: [SEARCH, BOARD, POPULAR],
    make: (base, r, k) => ({ post: othersPostFor(base, r, k).title, comment: r.pick(COMMENTS) })
  },
  {
    id: "forum-upvote",
    category: "transaction",
    split: "train",
    checker: "forum.upvote",
    instruction: 'Upvote the post "{post}".',
    pathFamilies: [SEARCH, BOARD, POPULAR],
    make: (base, r, k) => ({ post: othersPostFor(base, r, k).title })
  },
  {
    id: "forum-edit-title",
    category: "transaction",
    split: "train",
    checker: "forum.edit-title",
    instruction: 'Change the title of my post "{myPost}" to "{title}".',
    pathFamilies: [PROFILE, SEARCH, BOARD],
    make: (base, r) => ({ myPost: myPost(base, r).title, title: r.pick(NEW_TITLES) })
  },
  {
    id: "forum-delete-post",
    category: "transaction",
    split: "held-out",
    checker: "forum.deleted",
    instruction: 'Delete my post "{myPost}".',
    pathFamilies: [PROFILE, SEARCH],
    make: (base, r) => ({ myPost: myPost(base, r).title })
  },
  {
    id: "forum-comment-count",
    category: "information",
    split: "train",
    checker: "forum.answer-comment-count",
    instruction: 'How many comments (replies included) does the post "{post}" have?',
    pathFamilies: [SEARCH, BOARD, fam("search-list", "read the count from the post listing without opening the post")],
    // Posts with at least one comment, so "0" is never the answer by default.
    make: (base, r) => ({
      post: r.pick(base.posts.filter((p) => p.author !== base.me && commentsOf(forumInitial(base), p.id).length > 0)).title
    })
  },
  {
    id: "forum-post-author",
    category: "information",
    split: "held-out",
    checker: "forum.answer-author",
    instruction: 'Who wrote the post "{post}"? Answer with the username.',
    pathFamilies: [SEARCH, BOARD],
    make: (base, r) => ({ post: othersPost(base, r).title })
  },
  {
    id: "forum-missing-board",
    category: "infeasible",
    split: "train",
    checker: "forum.infeasible",
    instruction: 'Create a post titled "{title}" in the {missingBoard} board.',
    pathFamilies: [
      fam(
        "boards-none",
        "look through the boards on the home page or the Create post form, find no such board, and report the task infeasible"
      )
    ],
    make: (_base, r, k) => ({ missingBoard: rng(0, "forum-missing-board").shuffle(UNKNOWN_BOARDS)[k]!, title: r.pick(TITLES) })
  }
]

/**
 * Where the held-out variants start instead of the home page (Generator.ts, `variantsOf`):
 * the first board in the forum's order that the task does not name and none of its posts is
 * on, that board's first post not by a member the task names, and the search results for
 * that post's title.
 */
export const forumStarts = (base: ForumBase, p: Params): ReadonlyArray<StartPage> => {
  const named = new Set(base.posts.filter((x) => x.title === p.post || x.title === p.myPost).map((x) => x.boardId))
  const other = base.boards.find((b) => b.name !== p.board && !named.has(b.id))!
  const first = base.posts.find((x) => x.boardId === other.id && x.author !== p.user)!
  return [
    { key: "board", path: `/b/${other.id}` },
    { key: "post", path: `/post/${first.id}` },
    { key: "search", path: `/search?q=${encodeURIComponent(first.title)}` }
  ]
}

export const generateForumSuite = (): SuiteFile => generateSuite("forum", specs, INSTANCES, forumBase, forumStarts)

export const FORUM_SUITE_FILE = join(import.meta.dir, "forum.json")

export const forumSuiteJson = (): string => suiteJson(generateForumSuite())

if (import.meta.main) writeSuite(FORUM_SUITE_FILE, generateForumSuite())
