/** A run's ground-truth file: written whole, read back strictly, missing reads as none. */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { groundTruthFile, readGroundTruth, writeGroundTruth } from "../GroundTruth.ts"

const dir = () => mkdtempSync(join(tmpdir(), "core-ground-truth-"))

describe("ground truth beside the log", () => {
  test("what is written reads back, and a run with no file has none", async () => {
    const file = groundTruthFile(dir(), "run-a")
    expect(await Effect.runPromise(readGroundTruth(file))).toBeNull()
    const judged = new Map([
      ["t1", { success: true, reason: "cart holds the item" }],
      ["t2", { success: false, reason: "wrong page" }]
    ])
    writeGroundTruth(file, judged)
    expect(await Effect.runPromise(readGroundTruth(file))).toEqual(judged)
  })

  test.each([
    ["not JSON", "{"],
    ["a judgement without its reason", JSON.stringify({ t1: { success: true } })],
    ["a success that is not a boolean", JSON.stringify({ t1: { success: "yes", reason: "r" } })]
  ])("%s is refused in one line that names the file", async (_, text) => {
    const file = join(dir(), "truth.json")
    writeFileSync(file, text)
    const error = await Effect.runPromise(Effect.flip(readGroundTruth(file)))
    expect(error._tag).toBe("GroundTruthUnreadable")
    expect(error.message).toStartWith(`${file} is not a run's ground-truth file: `)
    expect(error.message).not.toContain("\n")
  })
})
