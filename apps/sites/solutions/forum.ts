/**
 * Scripted solutions of the forum suite: for every template, one script per path family
 * (ids as in suites/forum.json; the first family is the primary one, whose run is the
 * instance's expert demo). Targets are found by role + accessible name at run time. The
 * seeded forum (public site data, never the state API) only tells a script which board a
 * post is in or which post a member wrote, as a regular reader would know.
 */
import type { FullObservation } from "@core/environment"
import type { ForumBase } from "../forum/types.ts"
import type { Find, Step } from "./Runner.ts"
import { button, click, done, exact, infeasible, link, s, select, type } from "./Script.ts"
import type { Params } from "./Script.ts"

export type ForumScript = (p: Params, base: ForumBase) => ReadonlyArray<Step>

const boardOf = (base: ForumBase, title: string): string => {
  const post = base.posts.find((x) => x.title === title)
  return base.boards.find((b) => b.id === post?.boardId)?.name ?? "?"
}

/** A post's title link in the list that follows `after` (the sort or filter form, or the boards section for Popular posts). */
const inListing = (title: string, after: RegExp, more: Partial<Find> = {}): Find => link(exact(title), { after, ...more })
/** Case-insensitive, anywhere in the name: a title "about" a topic names it mid-sentence, in any case. */
const mentions = (text: string): RegExp => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i")
const searchBox: Find = { role: "searchbox", name: /^Search posts$/ }

/** Search by title, then open the post from the results. */
const search = (title: string): Array<Step> => [type(searchBox, title, true), click(inListing(title, /^Apply filters$/))]
/** Its board from the home page, then the post in the listing (paging as needed). */
const browse = (title: string, base: ForumBase): Array<Step> => [
  click(link(exact(boardOf(base, title)))),
  click(inListing(title, /^Apply$/, { pageVia: /^Next page$/ }))
]
/** From the home page's Popular posts: not applicable when the post is not there. */
const popular = (title: string): Array<Step> => [click(inListing(title, /^Browse all members$/, { requiredForFamily: true }))]
/** The signed-in user's profile lists all their posts on one page. */
const profile = (title: string): Array<Step> => [click(link(/^Your profile$/)), click(link(exact(title)))]

const comment = (p: Params): Array<Step> => [
  type({ role: "textbox", name: /^Your comment/ }, s(p, "comment")),
  click(button(/^Post comment$/)),
  done
]
const upvote = (title: string): Array<Step> => [click(button(exact(`Upvote post '${title}'`))), done]
const retitle = (p: Params): Array<Step> => [
  click(link(/^Edit post$/)),
  type({ role: "textbox", name: /^Title/ }, s(p, "title")),
  click(button(/^Save changes$/)),
  done
]
const remove: Array<Step> = [click(link(/^Delete post$/)), click(button(/^Yes, delete this post$/)), done]

/** Title and body of the Create post form, then publish. */
const publish = (p: Params): Array<Step> => [
  type({ role: "textbox", name: /^Title/ }, s(p, "title")),
  type({ role: "textbox", name: /^Body$/ }, s(p, "body")),
  click(button(/^Publish post$/)),
  done
]

/** The snapshot from the first mention of `text` on (titles are quoted differently in YAML, so match the bare text). */
const from = (obs: FullObservation, text: string): string => {
  const at = obs.aria.indexOf(text)
  return at < 0 ? "" : obs.aria.slice(at)
}
/** On the post page: its "Comments (N)" heading. */
const answerCount = (title: string): Step => ({
  kind: "answer",
  read: (obs) => from(obs, title).match(/heading "Comments \((\d+)\)"/)?.[1] ?? "unknown"
})
/** In a listing: the "N comments" link of the post's entry. */
const answerListedCount = (title: string): Step => ({
  kind: "answer",
  read: (obs) => from(obs, `article "${title}"`).match(/link "(\d+) comments?"/)?.[1] ?? "unknown"
})
/** On the post page: the member linked after "by" in the byline under the title. */
const answerAuthor = (title: string): Step => ({
  kind: "answer",
  read: (obs) => from(obs, `heading "${title}"`).match(/text: by\s+- link "([^"]+)"/)?.[1] ?? "unknown"
})

/** Template id → path family id → script. */
export const forumSolutions: Readonly<Record<string, Readonly<Record<string, ForumScript>>>> = {
  "forum-open-board": {
    home: (p) => [click(link(exact(s(p, "board")))), done],
    // All posts filtered to the board reach one of its posts without passing through the board page.
    breadcrumb: (p) => [
      type(searchBox, "", true),
      select({ role: "combobox", name: /^Board$/ }, s(p, "board")),
      click(button(/^Apply filters$/)),
      click(link(/./, { after: /^Apply filters$/ })),
      click(link(exact(s(p, "board")), { after: /^Home$/ })),
      done
    ]
  },
  "forum-open-profile": {
    members: (p) => [click(link(/^Browse all members$/)), click(link(exact(s(p, "user")))), done],
    "author-link": (p, base) => {
      const user = s(p, "user")
      const post =
        base.posts.find((x) => x.author === user) ??
        base.posts.find((x) => base.comments.some((c) => c.postId === x.id && c.author === user))
      return [...search(post?.title ?? user), click(link(exact(user))), done]
    },
    // A member's profile URL is public knowledge (/forum/u/<username>): typed into the address bar.
    "direct-url": (p) => [{ kind: "navigate", path: `/forum/u/${encodeURIComponent(s(p, "user"))}` }, done]
  },
  "forum-top-post": {
    "search-filter": (p) => [
      type(searchBox, s(p, "topic"), true),
      select({ role: "combobox", name: /^Board$/ }, s(p, "board")),
      select({ role: "combobox", name: /^Sort by$/ }, "top"),
      click(button(/^Apply filters$/)),
      click(link(/./, { after: /^Apply filters$/ })),
      done
    ],
    // Sorted by top score, the first title that names the topic is the one.
    "board-top": (p) => [
      click(link(exact(s(p, "board")))),
      select({ role: "combobox", name: /^Sort by$/ }, "top"),
      click(button(/^Apply$/)),
      click(link(mentions(s(p, "topic")), { after: /^Apply$/, pageVia: /^Next page$/ })),
      done
    ]
  },
  "forum-create-post": {
    "board-link": (p) => [click(link(exact(s(p, "board")))), click(link(exact(`Create a post in ${s(p, "board")}`))), ...publish(p)],
    "submit-form": (p) => [click(link(/^Create post$/)), select({ role: "combobox", name: /^Board$/ }, s(p, "board")), ...publish(p)]
  },
  "forum-comment": {
    search: (p) => [...search(s(p, "post")), ...comment(p)],
    "board-browse": (p, base) => [...browse(s(p, "post"), base), ...comment(p)],
    popular: (p) => [...popular(s(p, "post")), ...comment(p)]
  },
  "forum-upvote": {
    search: (p) => [...search(s(p, "post")), ...upvote(s(p, "post"))],
    "board-browse": (p, base) => [...browse(s(p, "post"), base), ...upvote(s(p, "post"))],
    popular: (p) => [...popular(s(p, "post")), ...upvote(s(p, "post"))]
  },
  "forum-edit-title": {
    profile: (p) => [...profile(s(p, "myPost")), ...retitle(p)],
    search: (p) => [...search(s(p, "myPost")), ...retitle(p)],
    "board-browse": (p, base) => [...browse(s(p, "myPost"), base), ...retitle(p)]
  },
  "forum-delete-post": {
    profile: (p) => [...profile(s(p, "myPost")), ...remove],
    search: (p) => [...search(s(p, "myPost")), ...remove]
  },
  "forum-comment-count": {
    search: (p) => [...search(s(p, "post")), answerCount(s(p, "post"))],
    "board-browse": (p, base) => [...browse(s(p, "post"), base), answerCount(s(p, "post"))],
    "search-list": (p) => [type(searchBox, s(p, "post"), true), answerListedCount(s(p, "post"))]
  },
  "forum-post-author": {
    search: (p) => [...search(s(p, "post")), answerAuthor(s(p, "post"))],
    "board-browse": (p, base) => [...browse(s(p, "post"), base), answerAuthor(s(p, "post"))]
  },
  "forum-missing-board": {
    // The form's Board list is the whole set of boards: the named one is not among them.
    "boards-none": () => [click(link(/^Create post$/)), infeasible]
  }
}
