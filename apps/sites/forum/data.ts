/** The seeded forum: boards, users, posts, comments and scores, all a pure function of the seed. */
import { rng } from "../framework/prng.ts"
import type { Comment, ForumBase, ForumState, Post, User } from "./types.ts"

interface BoardSpec {
  readonly id: string
  readonly name: string
  readonly description: string
  readonly topics: ReadonlyArray<string>
  readonly facts: ReadonlyArray<string>
}

const boardSpecs: ReadonlyArray<BoardSpec> = [
  {
    id: "gardening",
    name: "Gardening",
    description: "Vegetables, flowers, soil and everything that grows.",
    topics: [
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
    facts: [
      "My soil is mostly clay.",
      "I only get about five hours of sun.",
      "Last year the slugs ate everything.",
      "I garden on a small balcony."
    ]
  },
  {
    id: "cooking",
    name: "Cooking",
    description: "Recipes, techniques and kitchen questions.",
    topics: [
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
    facts: [
      "I cook for a family of four.",
      "My oven runs about ten degrees hot.",
      "I am trying to eat less meat.",
      "I only have a tiny kitchen."
    ]
  },
  {
    id: "cycling",
    name: "Cycling",
    description: "Commuting, touring, racing and bike repair.",
    topics: [
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
    facts: [
      "I ride about 30 km a day.",
      "My commute has a big hill at the end.",
      "I mostly ride on gravel paths.",
      "I am new to clipless pedals."
    ]
  },
  {
    id: "programming",
    name: "Programming",
    description: "Languages, tools and the craft of writing software.",
    topics: [
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
    facts: [
      "Our team has six developers.",
      "The codebase is about ten years old.",
      "We deploy several times a day.",
      "I mostly write TypeScript."
    ]
  },
  {
    id: "books",
    name: "Books",
    description: "What you are reading, what you loved and what to read next.",
    topics: [
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
    facts: [
      "I read mostly on my commute.",
      "My book club meets once a month.",
      "I try to read fifty books a year.",
      "I prefer paper books."
    ]
  },
  {
    id: "photography",
    name: "Photography",
    description: "Cameras, lenses, editing and critique.",
    topics: [
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
    ],
    facts: [
      "I shoot with an older mirrorless camera.",
      "Most of my photos are taken at dawn.",
      "I am still learning manual mode.",
      "I print my favourite shots."
    ]
  }
]

const titleTemplates: ReadonlyArray<(t: string) => string> = [
  (t) => `Tips for getting started with ${t}?`,
  (t) => `What is your take on ${t}?`,
  (t) => `Beginner question about ${t}`,
  (t) => `My experience with ${t} after a year`,
  (t) => `Anyone else obsessed with ${t}?`,
  (t) => `Help: trouble with ${t}`,
  (t) => `Show and tell: my ${t} setup`,
  (t) => `Best resources for learning about ${t}`,
  (t) => `Unpopular opinion about ${t}`,
  (t) => `How often do you think about ${t}?`
]

const openers = [
  "I have been wondering about this for a while.",
  "Long time reader, first post.",
  "Quick question for the experienced folks here.",
  "Sharing this in case it helps someone.",
  "I could use some advice."
]
const asks = [
  "What would you recommend?",
  "Has anyone else run into this?",
  "Any tips are welcome.",
  "What am I missing?",
  "Curious what everyone thinks."
]
const replies = [
  "Great question, I had the same problem last spring.",
  "I would start small and build up from there.",
  "This is the best advice I have read in a while.",
  "Honestly, it depends on your budget.",
  "I disagree, but I can see why you think so.",
  "Thanks for sharing, this was really helpful.",
  "Check the pinned guide, it covers most of this.",
  "I tried that once and it did not work for me.",
  "Patience is the real secret here.",
  "Could you post a photo or more details?",
  "Same here! Glad I am not the only one.",
  "The second option worked much better for me.",
  "Do not overthink it, just try it and adjust.",
  "I learned this the hard way, so good luck.",
  "Following, I would like to know too."
]

const adjectives = [
  "quiet",
  "rusty",
  "sunny",
  "clever",
  "brave",
  "lazy",
  "swift",
  "mellow",
  "curious",
  "bold",
  "gentle",
  "witty",
  "cosmic",
  "humble",
  "lucky",
  "nimble"
]
const animals = [
  "otter",
  "falcon",
  "badger",
  "heron",
  "lynx",
  "panda",
  "gecko",
  "walrus",
  "moose",
  "raven",
  "koala",
  "bison",
  "marten",
  "newt",
  "puffin",
  "yak"
]
const firstNames = [
  "Alex",
  "Sam",
  "Jordan",
  "Taylor",
  "Morgan",
  "Riley",
  "Casey",
  "Jamie",
  "Avery",
  "Quinn",
  "Robin",
  "Drew",
  "Priya",
  "Mateo",
  "Yuki",
  "Amara",
  "Lena",
  "Omar"
]
const hobbies = [
  "weekend gardener",
  "home cook",
  "bike commuter",
  "software developer",
  "avid reader",
  "amateur photographer",
  "tinkerer",
  "night owl"
]

export const USER_COUNT = 25
export const POST_COUNT = 80
export const COMMENT_COUNT = 300
const MINUTE = 60_000
/** 2024-05-01T12:00:00Z: the seeded "now"; content dates fall in the 30 days before it. */
export const FORUM_EPOCH = Date.UTC(2024, 4, 1, 12)

export const forumBase = (seed: number): ForumBase => {
  const r = rng(seed, "forum")
  const users: Array<User> = []
  const names = new Set<string>()
  while (users.length < USER_COUNT) {
    const id = `${r.pick(adjectives)}${r.pick(animals)}${r.int(1, 99)}`
    if (names.has(id)) continue
    names.add(id)
    const hobby = r.pick(hobbies)
    users.push({ id, displayName: r.pick(firstNames), bio: `${hobby[0]!.toUpperCase()}${hobby.slice(1)} and occasional poster.` })
  }
  const posts: Array<Post> = []
  const titles = new Set<string>()
  const times = Array.from({ length: POST_COUNT }, () => FORUM_EPOCH - r.int(60, 30 * 24 * 60) * MINUTE).sort((a, b) => a - b)
  for (let i = 0; i < POST_COUNT; i++) {
    const b = boardSpecs[i % boardSpecs.length]!
    let title = ""
    do title = r.pick(titleTemplates)(r.pick(b.topics))
    while (titles.has(title))
    titles.add(title)
    const [f1, f2] = r.shuffle(b.facts)
    const body = `${r.pick(openers)} ${f1} ${f2} ${r.pick(asks)}`
    posts.push({
      id: `p${i + 1}`,
      boardId: b.id,
      author: r.pick(users).id,
      title,
      body,
      createdAt: times[i]!,
      score: Math.max(-5, Math.round(r.next() ** 2 * 150) - 3),
      edited: false
    })
  }
  const comments: Array<Comment> = []
  for (let i = 0; i < COMMENT_COUNT; i++) {
    const post = r.pick(posts)
    const siblings = comments.filter((c) => c.postId === post.id && c.parentId === null)
    const parent = siblings.length > 0 && r.chance(0.4) ? r.pick(siblings) : null
    const after = parent?.createdAt ?? post.createdAt
    comments.push({
      id: `c${i + 1}`,
      postId: post.id,
      parentId: parent?.id ?? null,
      author: r.pick(users).id,
      body: r.shuffle(replies).slice(0, r.int(1, 2)).join(" "),
      createdAt: Math.min(FORUM_EPOCH, after + r.int(1, 600) * MINUTE),
      score: r.int(-2, 40)
    })
  }
  // Number comments oldest first, so "c1" is the forum's first comment, as on a real site.
  comments.sort((a, b) => a.createdAt - b.createdAt || Number(a.id.slice(1)) - Number(b.id.slice(1)))
  const renumber = new Map(comments.map((c, i) => [c.id, `c${i + 1}`]))
  const numbered = comments.map((c) => ({
    ...c,
    id: renumber.get(c.id)!,
    parentId: c.parentId === null ? null : renumber.get(c.parentId)!
  }))
  // The signed-in user has posts of their own, so "edit/delete my post" tasks always exist.
  const me = r.pick(users.filter((u) => posts.filter((p) => p.author === u.id).length >= 2))
  return {
    seed,
    boards: boardSpecs.map(({ id, name, description }) => ({ id, name, description })),
    users,
    posts,
    comments: numbered,
    me: me.id
  }
}

export const forumInitial = (base: ForumBase): ForumState => ({
  me: base.me,
  posts: base.posts.map((p) => ({ ...p })),
  comments: base.comments.map((c) => ({ ...c })),
  votes: [],
  deletedPostIds: [],
  nextPost: base.posts.length + 1,
  nextComment: base.comments.length + 1,
  clock: FORUM_EPOCH
})
