/** `bun core sites serve` through the real CLI: a person gets enter URLs, a browser gets no way to start episodes. */
import { expect, test } from "bun:test"
import { spawnCore } from "./support/cli.ts"

const firstLine = async (stream: ReadableStream<Uint8Array>): Promise<string> => {
  const reader = stream.getReader()
  let text = ""
  while (!text.includes("\n")) {
    const { value, done } = await reader.read()
    if (done) break
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return text.split("\n")[0]!
}

test("sites serve --json prints an enter URL per site that a browser can follow, and the tokens", async () => {
  const proc = spawnCore(["sites", "serve", "--json"])
  try {
    const out = JSON.parse(await firstLine(proc.stdout)) as { origin: string; enter: Record<string, string>; episodeToken: string }
    expect(Object.keys(out.enter).sort()).toEqual(["forum", "shop", "travel"])
    const enter = await fetch(out.enter.shop!, { redirect: "manual" })
    expect([enter.status, enter.headers.get("location")]).toEqual([303, "/shop/"])
    const home = await fetch(`${out.origin}/shop/`, { headers: { cookie: enter.headers.get("set-cookie")!.split(";")[0]! } })
    expect(home.status).toBe(200)
    const index = await (await fetch(`${out.origin}/`)).text()
    expect(index).toContain("bun core sites serve")
    expect(index).not.toContain(out.episodeToken)
    const tokenless = await fetch(`${out.origin}/__core/episodes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ site: "shop", seed: 1 })
    })
    expect(tokenless.status).toBe(403)
  } finally {
    proc.kill("SIGINT")
    await proc.exited
  }
})
