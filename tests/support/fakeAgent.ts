/**
 * An OpenAI-compatible model server playing a competent agent for "open the category": it
 * clicks the link the task names in the element list it is sent, then says complete.
 * `seen` tells which requests were the policy's (their prompt lists the actions so far) and
 * the images each carried (the screenshot, as a data: URL).
 *
 * @example
 * const agent = fakeAgent(); // run --policy model --model-base-url agent.url …; agent.stop()
 */
import { chatServer } from "./chatServer.ts"

export interface Seen {
  readonly policy: boolean
  readonly images: number
  readonly dataUrls: number
}

/** The agent's reply to a policy prompt: the named category's link first, then complete. */
const reply = (text: string): string => {
  const task = text.split("# Task")[1]?.split("#")[0] ?? ""
  const category = task.match(/'([^']+)'|"([^"]+)"|the (\w+) category/i)
  const wanted = (category?.[1] ?? category?.[2] ?? category?.[3] ?? "").toLowerCase()
  const history = text.split("# Actions taken so far")[1]?.split("# Actions you can take")[0] ?? ""
  const link = text.split("\n").find((l) => /^\[(e\d+)\] link "/.test(l) && l.toLowerCase().includes(`"${wanted}"`))
  return !history.includes("(none yet)") || link === undefined
    ? JSON.stringify({ thought: "the category page is open", action: { kind: "status", status: "complete" } })
    : JSON.stringify({ thought: `the ${wanted} link`, action: { kind: "click", element: link.match(/^\[(e\d+)\]/)![1] } })
}

export const fakeAgent = () => {
  const seen: Array<Seen> = []
  const server = chatServer(({ text, parts }) => {
    const images = parts.filter((p) => p.type === "image_url")
    const policy = text.includes("# Actions taken so far")
    seen.push({
      policy,
      images: images.length,
      dataUrls: images.filter((p) => String(p.image_url?.url).startsWith("data:image/png;base64,")).length
    })
    return policy ? reply(text) : "I cannot help with that."
  })
  return { url: server.url, seen, stop: server.stop }
}
