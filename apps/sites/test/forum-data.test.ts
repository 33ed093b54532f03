import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { forum } from "../forum/mod.ts"
import { PAGE_SIZE } from "../forum/model.ts"
import { startEpisode, textOf, withServer } from "./client.ts"

const postIds = (text: string): Array<string> => [...text.matchAll(/<h3 id="title-(p\d+)">/g)].map((m) => m[1]!)

describe("forum: deterministic content", () => {
  test("same seed → identical forum; different seed → different forum", () => {
    const a = forum.base(1)
    expect(Bun.deepEquals(a, forum.base(1), true)).toBe(true)
    const b = forum.base(2)
    expect(a.posts.map((p) => p.title)).not.toEqual(b.posts.map((p) => p.title))
    expect(a.boards).toHaveLength(6)
    expect(a.users).toHaveLength(25)
    expect(a.posts).toHaveLength(80)
    expect(a.comments).toHaveLength(300)
    expect(new Set(a.users.map((u) => u.id)).size).toBe(25)
    expect(new Set(a.posts.map((p) => p.title)).size).toBe(80)
    expect(a.posts.filter((p) => p.author === a.me).length).toBeGreaterThanOrEqual(2)
    const ids = new Set(a.comments.map((c) => c.id))
    for (const c of a.comments) {
      expect(a.posts.some((p) => p.id === c.postId)).toBe(true)
      if (c.parentId !== null) {
        expect(ids.has(c.parentId)).toBe(true)
        expect(a.comments.find((x) => x.id === c.parentId)!.parentId).toBeNull()
      }
    }
    expect(a.comments.some((c) => c.parentId !== null)).toBe(true)
    expect(a.comments.map((c) => c.id).slice(0, 3)).toEqual(["c1", "c2", "c3"])
  })

  const env = withServer()
  beforeAll(env.start)
  afterAll(env.stop)

  test("same seed → byte-identical pages in two episodes; different seed → different pages", async () => {
    const base = forum.base(11)
    const p = base.posts[17]!
    const paths = [
      "/forum/",
      `/forum/b/${base.boards[2]!.id}?sort=top&page=2`,
      `/forum/post/${p.id}`,
      `/forum/u/${p.author}`,
      "/forum/search?q=tips&sort=new",
      "/forum/users",
      "/forum/submit"
    ]
    const one = await startEpisode(env.server(), "forum", 11)
    const two = await startEpisode(env.server(), "forum", 11)
    const other = await startEpisode(env.server(), "forum", 12)
    for (const path of paths) {
      const [x, y, z] = await Promise.all([one.browser.get(path), two.browser.get(path), other.browser.get(path)])
      expect(x.status).toBe(200)
      expect(x.text).toBe(y.text)
      if (path !== "/forum/submit") expect(x.text).not.toBe(z.text)
    }
  })

  test("a board pages through its posts, sorted by new or top", async () => {
    const base = forum.base(4)
    const { browser } = await startEpisode(env.server(), "forum", 4)
    const board = base.boards[0]!
    const mine = base.posts.filter((p) => p.boardId === board.id)
    const p1 = await browser.get(`/forum/b/${board.id}`)
    const newest = [...mine].sort((a, b) => b.createdAt - a.createdAt).map((p) => p.id)
    expect(postIds(p1.text)).toEqual(newest.slice(0, PAGE_SIZE))
    expect(textOf(p1)).toContain(`${mine.length} posts, page 1 of 2`)
    expect(p1.text).toContain('<option value="new" selected>')
    const top = await browser.get(`/forum/b/${board.id}?sort=top`)
    const scores = postIds(top.text).map((id) => mine.find((p) => p.id === id)!.score)
    expect([...scores].sort((a, b) => b - a)).toEqual(scores)
    const next = top.text.match(/<a href="([^"]+)" rel="next">Next page<\/a>/)![1]!.replace(/&amp;/g, "&")
    expect(next).toBe(`/forum/b/${board.id}?sort=top&page=2`)
    const p2 = await browser.get(next)
    expect(p2.text).toContain('aria-current="page" aria-label="Page 2"')
    expect(postIds(p2.text)).toHaveLength(mine.length - PAGE_SIZE)
    expect(new Set([...postIds(top.text), ...postIds(p2.text)]).size).toBe(mine.length)
  })

  test("search matches title and body, filters by board and sorts", async () => {
    const base = forum.base(4)
    const { browser } = await startEpisode(env.server(), "forum", 4)
    const target = base.posts[30]!
    const found = await browser.get(`/forum/search?q=${encodeURIComponent(target.title.toUpperCase())}`)
    expect(postIds(found.text)[0]).toBe(target.id)
    const board = base.boards[3]!
    const filtered = await browser.get(`/forum/search?q=&board=${board.id}&sort=top`)
    const expected = base.posts.filter((p) => p.boardId === board.id).sort((a, b) => b.score - a.score || b.createdAt - a.createdAt)
    expect(postIds(filtered.text)).toEqual(expected.slice(0, PAGE_SIZE).map((p) => p.id))
    expect(filtered.text).toContain(`<option value="${board.id}" selected>`)
    const word = await browser.get("/forum/search?q=tips+welcome&sort=new")
    const hits = base.posts.filter(
      (p) => `${p.title} ${p.body}`.toLowerCase().includes("tips") && `${p.title} ${p.body}`.toLowerCase().includes("welcome")
    )
    expect(textOf(word)).toContain(`${hits.length} results`)
    expect(textOf(await browser.get("/forum/search?q=zzzqqq"))).toContain("No posts found")
  })

  test("unknown boards, posts, users and comments are 404 pages inside the forum", async () => {
    const { browser } = await startEpisode(env.server(), "forum", 4)
    for (const p of ["/forum/b/nope", "/forum/post/p999", "/forum/u/nobody", "/forum/nowhere", "/forum/post/p1/reply/c999"]) {
      const page = await browser.get(p)
      expect(page.status).toBe(404)
      expect(textOf(page)).toContain("Page not found")
    }
  })
})
