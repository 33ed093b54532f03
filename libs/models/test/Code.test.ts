import { expect, test } from "bun:test"
import { extractCode } from "../mod.ts"

const lf = 'function labelFunction(t) {\n  return validateStatus(t, "complete")\n}'

test("the first javascript, typescript or bare fence, without prose", () => {
  expect(extractCode(`Here you go:\n\n\`\`\`javascript\n${lf}\n\`\`\`\nThat's it.`)).toBe(lf)
  expect(extractCode(`\`\`\`js\n${lf}\n\`\`\``)).toBe(lf)
  expect(extractCode(`\`\`\`ts\n${lf}\n\`\`\``)).toBe(lf)
  expect(extractCode(`\`\`\`\n${lf}\n\`\`\``)).toBe(lf)
  const crlf = lf.replace(/\n/g, "\r\n")
  expect(extractCode(`\`\`\`JavaScript\r\n${crlf}\r\n\`\`\`\r\nDone.`)).toBe(crlf)
})

test("the first block wins; other languages and empty blocks are skipped", () => {
  const text = `Input:\n\`\`\`json\n{"kind": "click"}\n\`\`\`\n\`\`\`js\n\`\`\`\nAnswer:\n\`\`\`js\n${lf}\n\`\`\`\nAlternative:\n\`\`\`js\nfunction labelFunction(t) { return -1 }\n\`\`\``
  expect(extractCode(text)).toBe(lf)
})

test("a closing fence is not mistaken for an opening one", () => {
  expect(extractCode("```python\nprint(1)\n```\nthen\n```js\nfunction labelFunction(t) { return 0 }\n```")).toBe(
    "function labelFunction(t) { return 0 }"
  )
})

test("an unclosed fence runs to the end; a fence glued to the code is dropped", () => {
  expect(extractCode(`\`\`\`javascript\n${lf}`)).toBe(lf)
  expect(extractCode(`\`\`\`javascript\n${lf}\`\`\``)).toBe(lf)
})

test("unfenced code defining labelFunction is taken whole; anything else is null", () => {
  expect(extractCode(`  ${lf}\n`)).toBe(lf)
  expect(extractCode("I cannot write a label function for this step.")).toBeNull()
  expect(extractCode("```json\n[1, 2]\n```")).toBeNull()
  expect(extractCode("")).toBeNull()
})

test("an inline mention of a fence is not a fence", () => {
  expect(extractCode("Wrap it in ```js … ``` like this:\n```js\nconst x = 1\n```")).toBe("const x = 1")
})
