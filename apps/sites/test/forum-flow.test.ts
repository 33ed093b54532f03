import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { forum } from "../forum/mod.ts"
import { forumState, karma, myCommentsOn, newPosts, postByTitle, voteOn, wasDeleted } from "../eval/mod.ts"
import { linksTo, startEpisode, textOf, withServer } from "./client.ts"

const env = withServer()
beforeAll(env.start)
afterAll(env.stop)

describe("forum: the whole flow over HTTP, with the state API following each change", () => {
  test("browse → post → comment (invalid, then valid) → reply → vote → toggle vote", async () => {
    const s = env.server()
    const { tenant, browser, first } = await startEpisode(s, "forum", 21)
    const base = forum.base(21)
    expect(first.path).toBe("/forum/")
    const p = base.posts.filter((x) => x.author !== base.me)[5]!
    const board = base.boards.find((b) => b.id === p.boardId)!
    expect(linksTo(first, board.name)).toContain(`/forum/b/${board.id}`)
    const boardPage = await browser.get(`/forum/b/${board.id}?sort=new`)
    const onBoard = linksTo(boardPage, p.title).includes(`/forum/post/${p.id}`)
      ? boardPage
      : await browser.get(`/forum/b/${board.id}?sort=new&page=2`)
    expect(linksTo(onBoard, p.title)).toContain(`/forum/post/${p.id}`)

    const page = await browser.get(`/forum/post/${p.id}`)
    expect(page.text).toContain(`<h1 id="post-title">${p.title}</h1>`)
    expect(page.text).toContain(`aria-label="Upvote post &#39;${p.title}&#39;"`)
    expect(page.text).not.toContain(">Edit post</a>")

    const empty = await browser.post(`/forum/post/${p.id}/comments`, { body: "   " })
    expect(empty.status).toBe(422)
    expect(empty.text).toContain('role="alert"')
    expect(empty.text).toMatch(/id="comment-body"[^>]*aria-invalid="true" aria-describedby="comment-body-error"/)
    expect(textOf(empty)).toContain("Write a comment before posting.")
    const long = await browser.post(`/forum/post/${p.id}/comments`, { body: "x".repeat(1001) })
    expect(long.status).toBe(422)
    expect(textOf(long)).toContain("Keep comments to 1000 characters or fewer (yours has 1001)")
    expect(long.text).toContain("x".repeat(1001) + "</textarea>")
    expect(myCommentsOn((await forumState(s, tenant)).state, p.id)).toHaveLength(0)

    const ok = await browser.post(`/forum/post/${p.id}/comments`, { body: "<b>Nice</b> post, thanks!" })
    expect(ok.path).toBe(`/forum/post/${p.id}?m=commented`)
    expect(ok.text).toContain('<div role="status">Your comment has been posted.</div>')
    expect(ok.text).toContain("&lt;b&gt;Nice&lt;/b&gt; post, thanks!")
    let snap = await forumState(s, tenant)
    const mine = myCommentsOn(snap.state, p.id)
    expect(mine).toEqual([
      {
        id: "c301",
        postId: p.id,
        parentId: null,
        author: base.me,
        body: "<b>Nice</b> post, thanks!",
        createdAt: Date.UTC(2024, 4, 1, 12, 1),
        score: 0
      }
    ])

    const replyLink = linksTo(ok, "Reply").find((h) => h.endsWith("/reply/c301"))!
    const replyPage = await browser.get(replyLink)
    expect(replyPage.text).toContain('<label for="reply-body">')
    expect((await browser.post(`/forum/post/${p.id}/comments`, { body: "", parentId: "c301" })).status).toBe(422)
    const replied = await browser.post(`/forum/post/${p.id}/comments`, { body: "Replying to myself", parentId: "c301" })
    expect(textOf(replied)).toContain("Your reply has been posted.")
    expect(replied.text).toMatch(/<ul class="replies" aria-label="Replies to [a-z0-9]+">.*Replying to myself/s)
    snap = await forumState(s, tenant)
    expect(snap.state.comments.find((c) => c.id === "c302")).toMatchObject({ parentId: "c301", body: "Replying to myself" })

    const score = (): Promise<number> => forumState(s, tenant).then((x) => x.state.posts.find((q) => q.id === p.id)!.score)
    const up = await browser.post("/forum/vote", { kind: "post", id: p.id, dir: "up", return: `/post/${p.id}` })
    expect(up.path).toBe(`/forum/post/${p.id}`)
    expect(up.text).toContain(`aria-pressed="true" aria-label="Upvote post &#39;${p.title}&#39;"`)
    expect(textOf(up)).toContain(`Score: ${p.score + 1}`)
    snap = await forumState(s, tenant)
    expect(voteOn(snap.state, "post", p.id)).toBe(1)
    expect(await score()).toBe(p.score + 1)
    await browser.post("/forum/vote", { kind: "post", id: p.id, dir: "up" })
    expect(voteOn((await forumState(s, tenant)).state, "post", p.id)).toBe(0)
    expect(await score()).toBe(p.score)
    await browser.post("/forum/vote", { kind: "post", id: p.id, dir: "up" })
    await browser.post("/forum/vote", { kind: "post", id: p.id, dir: "down" })
    expect(await score()).toBe(p.score - 1)
    snap = await forumState(s, tenant)
    expect(snap.state.votes).toEqual([{ kind: "post", id: p.id, value: -1 }])
    expect(karma(snap.state, p.author)).toBe(karma(forum.initial(base, 21), p.author) - 1)

    const c = base.comments.find((x) => x.postId === p.id)!
    const cv = await browser.post("/forum/vote", { kind: "comment", id: c.id, dir: "up", return: `/post/${p.id}` })
    expect(cv.text).toContain(`aria-pressed="true" aria-label="Upvote comment by ${c.author}`)
    snap = await forumState(s, tenant)
    expect(voteOn(snap.state, "comment", c.id)).toBe(1)
    expect(snap.state.comments.find((x) => x.id === c.id)!.score).toBe(c.score + 1)
    expect((await browser.post("/forum/vote", { kind: "comment", id: "c999", dir: "up" })).status).toBe(404)
  })

  test("create post: validation errors next to the fields, then it appears on its board and the profile", async () => {
    const s = env.server()
    const { tenant, browser } = await startEpisode(s, "forum", 22)
    const base = forum.base(22)
    const form = await browser.get("/forum/submit?board=cycling")
    expect(form.text).toContain('<option value="cycling" selected>')
    const bad = await browser.post("/forum/submit", { board: "", title: "x".repeat(121), body: "" })
    expect(bad.status).toBe(422)
    for (const f of ["board", "title", "body"])
      expect(bad.text).toMatch(new RegExp(`id="${f}"[^>]*aria-invalid="true" aria-describedby="${f}-error"`))
    expect(textOf(bad)).toContain("There are 3 problems")
    expect(textOf(bad)).toContain("Keep the title to 120 characters or fewer.")
    expect(newPosts((await forumState(s, tenant)).state, base)).toHaveLength(0)

    const made = await browser.post("/forum/submit", {
      board: "cycling",
      title: "Best route to work?",
      body: "Looking for a quiet route.\n\nAny ideas?"
    })
    expect(made.path).toBe("/forum/post/p81?m=created")
    expect(textOf(made)).toContain("Your post has been published.")
    expect(made.text).toContain("<p>Looking for a quiet route.</p>")
    expect(linksTo(made, "Edit post")).toEqual(["/forum/post/p81/edit"])
    const snap = await forumState(s, tenant)
    expect(postByTitle(snap.state, "best route to work?")).toMatchObject({
      id: "p81",
      boardId: "cycling",
      author: base.me,
      score: 0,
      edited: false
    })
    expect(newPosts(snap.state, base).map((p) => p.id)).toEqual(["p81"])
    expect(linksTo(await browser.get("/forum/b/cycling"), "Best route to work?")).toEqual(["/forum/post/p81"])
    expect(linksTo(await browser.get(`/forum/u/${base.me}`), "Best route to work?")).toEqual(["/forum/post/p81"])
  })

  test("edit own post (invalid, then valid); others' posts cannot be edited or deleted", async () => {
    const s = env.server()
    const { tenant, browser } = await startEpisode(s, "forum", 23)
    const base = forum.base(23)
    const own = base.posts.find((p) => p.author === base.me)!
    const edit = await browser.get(`/forum/post/${own.id}/edit`)
    expect(edit.text).toContain(`value="${own.title}"`)
    const bad = await browser.post(`/forum/post/${own.id}/edit`, { title: "", body: "still here" })
    expect(bad.status).toBe(422)
    expect(bad.text).toContain('id="title-error"')
    expect(bad.text).toContain("still here</textarea>")
    const ok = await browser.post(`/forum/post/${own.id}/edit`, { title: "Updated title", body: "Updated body" })
    expect(ok.path).toBe(`/forum/post/${own.id}?m=edited`)
    expect(textOf(ok)).toContain("Your post has been updated.")
    expect(textOf(ok)).toContain("(edited)")
    expect((await forumState(s, tenant)).state.posts.find((p) => p.id === own.id)).toMatchObject({
      title: "Updated title",
      body: "Updated body",
      edited: true
    })
    const other = base.posts.find((p) => p.author !== base.me)!
    expect((await browser.get(`/forum/post/${other.id}/edit`)).status).toBe(403)
    expect((await browser.post(`/forum/post/${other.id}/edit`, { title: "Hijack", body: "x" })).status).toBe(403)
    expect((await browser.post(`/forum/post/${other.id}/delete`, {})).status).toBe(403)
    expect((await forumState(s, tenant)).state.posts.find((p) => p.id === other.id)!.title).toBe(other.title)
  })

  test("delete own post after a confirmation page", async () => {
    const s = env.server()
    const { tenant, browser } = await startEpisode(s, "forum", 24)
    const base = forum.base(24)
    const own = base.posts.find((p) => p.author === base.me)!
    const confirm = await browser.get(`/forum/post/${own.id}/delete`)
    expect(confirm.text).toContain(">Yes, delete this post</button>")
    expect(linksTo(confirm, "No, keep it")).toEqual([`/forum/post/${own.id}`])
    expect((await forumState(s, tenant)).state.posts.some((p) => p.id === own.id)).toBe(true)
    const done = await browser.post(`/forum/post/${own.id}/delete`, {})
    expect(done.path).toBe(`/forum/b/${own.boardId}?m=deleted`)
    expect(textOf(done)).toContain("Your post has been deleted.")
    expect(linksTo(done, own.title)).toEqual([])
    const snap = await forumState(s, tenant)
    expect(wasDeleted(snap.state, own.id)).toBe(true)
    expect(snap.state.posts.some((p) => p.id === own.id)).toBe(false)
    expect(snap.state.comments.some((c) => c.postId === own.id)).toBe(false)
    const gone = await browser.get(`/forum/post/${own.id}`)
    expect(gone.status).toBe(404)
    expect(textOf(gone)).toContain("This post has been deleted.")
  })

  test("a post is reachable by board browsing, search, a user profile and direct URL", async () => {
    const s = env.server()
    const { browser } = await startEpisode(s, "forum", 26)
    const base = forum.base(26)
    const p = base.posts[40]!
    const href = `/forum/post/${p.id}`
    const board = await browser.get(`/forum/b/${p.boardId}?sort=new`)
    expect(
      linksTo(board, p.title).includes(href) || linksTo(await browser.get(`/forum/b/${p.boardId}?sort=new&page=2`), p.title).includes(href)
    ).toBe(true)
    expect(linksTo(await browser.get(`/forum/search?q=${encodeURIComponent(p.title)}&board=${p.boardId}`), p.title)).toContain(href)
    const members = await browser.get("/forum/users")
    expect(linksTo(members, p.author)).toContain(`/forum/u/${p.author}`)
    expect(linksTo(await browser.get(`/forum/u/${p.author}`), p.title)).toContain(href)
    expect((await browser.get(href)).status).toBe(200)
  })
})

describe("forum: isolation", () => {
  test("parallel episodes never see each other's comments, votes or posts", async () => {
    const s = env.server()
    const eps = await Promise.all(Array.from({ length: 6 }, () => startEpisode(s, "forum", 30)))
    const posts = forum.base(30).posts
    await Promise.all(
      eps.map(async (e, i) => {
        await e.browser.post(`/forum/post/${posts[i]!.id}/comments`, { body: `Comment from episode ${i}` })
        await e.browser.post("/forum/vote", { kind: "post", id: posts[i]!.id, dir: "up" })
        await e.browser.post("/forum/submit", { board: "books", title: `Episode ${i} post`, body: "Hello" })
      })
    )
    await Promise.all(
      eps.map(async (e, i) => {
        const snap = await forumState(s, e.tenant)
        expect(snap.state.votes).toEqual([{ kind: "post", id: posts[i]!.id, value: 1 }])
        expect(snap.state.comments.filter((c) => c.body.startsWith("Comment from episode")).map((c) => c.body)).toEqual([
          `Comment from episode ${i}`
        ])
        expect(snap.state.posts.find((p) => p.id === "p81")!.title).toBe(`Episode ${i} post`)
        const board = textOf(await e.browser.get("/forum/b/books"))
        for (let j = 0; j < eps.length; j++) expect(board.includes(`Episode ${j} post`)).toBe(i === j)
      })
    )
    expect(forum.base(30).posts[0]!.score).toBe(posts[0]!.score)
  })
})
