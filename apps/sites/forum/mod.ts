/** The forum site: boards, posts, threaded comments, votes, search and profiles. */
import { defineSite } from "../framework/site.ts"
import type { Route } from "../framework/site.ts"
import { forumBase, forumInitial } from "./data.ts"
import { boardPage, home } from "./pages/boards.ts"
import { notFound } from "./pages/errors.ts"
import { addComment, postPage, replyPage, vote } from "./pages/post.ts"
import { searchPage } from "./pages/search.ts"
import { userPage, usersPage } from "./pages/users.ts"
import { createPost, deletePage, deletePost, editPage, savePost, submitPage } from "./pages/write.ts"
import type { ForumBase, ForumState } from "./types.ts"

const routes: ReadonlyArray<Route<ForumBase, ForumState>> = [
  { method: "GET", path: "/", handler: home },
  { method: "GET", path: "/b/:id", handler: boardPage },
  { method: "GET", path: "/search", handler: searchPage },
  { method: "GET", path: "/post/:id", handler: postPage },
  { method: "POST", path: "/post/:id/comments", handler: addComment },
  { method: "GET", path: "/post/:id/reply/:cid", handler: replyPage },
  { method: "GET", path: "/post/:id/edit", handler: editPage },
  { method: "POST", path: "/post/:id/edit", handler: savePost },
  { method: "GET", path: "/post/:id/delete", handler: deletePage },
  { method: "POST", path: "/post/:id/delete", handler: deletePost },
  { method: "POST", path: "/vote", handler: vote },
  { method: "GET", path: "/submit", handler: submitPage },
  { method: "POST", path: "/submit", handler: createPost },
  { method: "GET", path: "/users", handler: usersPage },
  { method: "GET", path: "/u/:id", handler: userPage }
]

export const forum = defineSite<ForumBase, ForumState>({
  name: "forum",
  title: "CORE Forum",
  base: forumBase,
  initial: forumInitial,
  routes,
  options: { search: ["on", "off"] },
  notFound: (ctx) => notFound(ctx)
})

export type { ForumBase, ForumState } from "./types.ts"
