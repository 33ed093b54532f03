import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { forum } from "../forum/mod.ts"
import { FORUM_SUITE_FILE, forumSuiteJson, generateForumSuite } from "../suites/forum.ts"
import { loadSuites } from "../suites/mod.ts"
import { loadSuite, parseSuite } from "../suites/Suite.ts"

const FILE = "suites/forum.json"
const original = (): any => JSON.parse(readFileSync(FORUM_SUITE_FILE, "utf8"))

/** The one-line error for a mutated copy of the forum suite. */
const errorOf = async (mutate: (s: any) => void): Promise<string> => {
  const s = original()
  mutate(s)
  const exit = await Effect.runPromise(Effect.flip(parseSuite(JSON.stringify(s), FILE)))
  return exit.message
}

describe("the forum suite file", () => {
  test("is exactly what the generator makes from the seeded forum (file and site never drift)", () => {
    expect(readFileSync(FORUM_SUITE_FILE, "utf8")).toBe(forumSuiteJson())
  })

  test("is deterministic, and loadSuites() picks it up", async () => {
    expect(generateForumSuite()).toEqual(generateForumSuite())
    const all = await Effect.runPromise(loadSuites())
    expect(all.map((s) => s.suite)).toContain("forum")
  })

  test("loads, fills instructions, and covers every category, both splits and enough tasks", async () => {
    const suite = await Effect.runPromise(loadSuite(FORUM_SUITE_FILE))
    expect(suite).toMatchObject({ suite: "forum", version: 1 })
    expect(suite.templates.length).toBeGreaterThanOrEqual(7)
    expect(suite.tasks.length).toBeGreaterThanOrEqual(21)
    expect(new Set(suite.templates.map((t) => t.category))).toEqual(
      new Set(["navigation", "search", "form", "transaction", "information", "infeasible"])
    )
    expect(suite.templates.every((t) => t.site === "forum" && t.checker.startsWith("forum."))).toBe(true)
    expect(suite.templates.filter((t) => t.split === "held-out").length).toBeGreaterThanOrEqual(1)
    const heldOutOfTrain = suite.tasks.filter(
      (t) => t.split === "held-out" && suite.templates.find((x) => x.id === t.templateId)!.split === "train"
    )
    expect(heldOutOfTrain.length).toBeGreaterThanOrEqual(2)
    for (const t of suite.tasks) {
      expect(t.instruction).not.toMatch(/[{}]/)
      expect(t.pathFamilies.length).toBeGreaterThan(0)
    }
    for (const t of suite.tasks) {
      const base = forum.base(t.siteSeed)
      if (typeof t.parameters.post === "string") expect(base.posts.map((p) => p.title)).toContain(t.parameters.post)
      if (typeof t.parameters.myPost === "string") expect(base.posts.find((p) => p.title === t.parameters.myPost)!.author).toBe(base.me)
      if (typeof t.parameters.board === "string") expect(base.boards.map((b) => b.name)).toContain(t.parameters.board)
    }
    // Held-out parameter values are unseen in training instances of the same template.
    for (const t of heldOutOfTrain) {
      for (const x of suite.tasks.filter((y) => y.templateId === t.templateId && y.split === "train"))
        expect(x.parameters).not.toEqual(t.parameters)
    }
  })
})

describe("the loader rejects a bad forum suite with one line naming the file and the JSON path", () => {
  const notMine = (seed: number): string => forum.base(seed).posts.find((p) => p.author !== forum.base(seed).me)!.title
  const cases: ReadonlyArray<[string, (s: any) => void, string]> = [
    [
      "post title not in that seed",
      (s) => (s.templates[4].instances[0].parameters.post = "How to train a dragon"),
      `${FILE}: templates[4].instances[0].parameters.post: 'How to train a dragon' is not a post title in the forum of seed 201`
    ],
    ["post from another seed", (s) => (s.templates[5].instances[1].siteSeed = 7), `${FILE}: templates[5].instances[1].parameters.post: '`],
    [
      "own post that is someone else's",
      (s) => (s.templates[6].instances[0].parameters.myPost = notMine(201)),
      `${FILE}: templates[6].instances[0].parameters.myPost: '${notMine(201)}' is by `
    ],
    [
      "unknown board",
      (s) => (s.templates[0].instances[0].parameters.board = "Knitting"),
      `${FILE}: templates[0].instances[0].parameters.board: 'Knitting' is not a forum board (known: Gardening`
    ],
    [
      "unknown member",
      (s) => (s.templates[1].instances[1].parameters.user = "nobody1"),
      `${FILE}: templates[1].instances[1].parameters.user: 'nobody1' is not a member of the forum of seed 202`
    ],
    [
      "topic nobody wrote about",
      (s) => (s.templates[2].instances[0].parameters.topic = "zeppelins"),
      `${FILE}: templates[2].instances[0].parameters.topic: no post of the forum of seed 201 mentions 'zeppelins'`
    ],
    [
      "infeasible task naming a real board",
      (s) => (s.templates[10].instances[0].parameters.missingBoard = "cooking"),
      `${FILE}: templates[10].instances[0].parameters.missingBoard: 'cooking' is a board of the forum`
    ],
    [
      "parameter the checker needs",
      (s) => delete s.templates[2].instances[1].parameters.topic,
      `${FILE}: templates[2].instances[1].parameters: no value for parameter {topic}`
    ],
    [
      "checker of another site",
      (s) => (s.templates[0].checker = "shop.url-category"),
      `${FILE}: templates[0].checker: checker 'shop.url-category' is for site 'shop', not 'forum'`
    ],
    [
      "shop parameter on a forum task",
      (s) => (s.templates[0].instances[0].parameters.product = "Lamp"),
      `${FILE}: templates[0].instances[0].parameters.product: unknown parameter 'product' for site forum`
    ],
    [
      "train instance of a held-out template",
      (s) => (s.templates[7].instances[0].split = "train"),
      `${FILE}: templates[7].instances[0].split: template 'forum-delete-post' is held out`
    ]
  ]
  for (const [name, mutate, expected] of cases) {
    test(name, async () => {
      const message = await errorOf(mutate)
      expect(message.slice(0, expected.length)).toBe(expected)
      expect(message).not.toContain("\n")
    })
  }
})
