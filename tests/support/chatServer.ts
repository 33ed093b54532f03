/**
 * An OpenAI-compatible chat-completions server on a free loopback port, for tests that run
 * CORE against a model server: each request is answered with what `answer` says for it.
 * The request reaches `answer` as its prompt text (every text part, in order) and its parts
 * (so a test can count the images it carried).
 *
 * @example
 * const server = chatServer(({ text }) => (text.includes("KEY steps") ? "[1, 3]" : "I cannot help with that."))
 * // run … --model-base-url server.url; afterAll(server.stop)
 */
export interface ChatRequest {
  readonly model: string
  /** The prompt: every message's text, joined by newlines. */
  readonly text: string
  /** Every message's content parts (a string content is one text part). */
  readonly parts: ReadonlyArray<any>
}

const partsOf = (content: unknown): Array<any> => (Array.isArray(content) ? content : [{ type: "text", text: String(content) }])

export const chatServer = (answer: (request: ChatRequest) => string) => {
  let served = 0
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as { model: string; messages: Array<{ content: unknown }> }
      const parts = body.messages.flatMap((m) => partsOf(m.content))
      const text = parts
        .filter((p) => p.type === "text")
        .map((p) => String(p.text))
        .join("\n")
      const content = answer({ model: body.model, text, parts })
      served++
      return Response.json({
        id: `chatcmpl-${served}`,
        object: "chat.completion",
        created: 1764700000,
        model: body.model,
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        usage: { prompt_tokens: Math.ceil(text.length / 4), completion_tokens: Math.ceil(content.length / 4), total_tokens: 0 }
      })
    }
  })
  return { url: `http://127.0.0.1:${server.port}/v1`, stop: () => void server.stop(true) }
}
