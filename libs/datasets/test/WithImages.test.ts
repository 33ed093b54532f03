/**
 * An export that asks for the set-of-marks images: given records with and without marks,
 * then `images` are the marked ones where there are any, and a record without is as emitted.
 */
import { expect, test } from "bun:test"
import type { RecordData } from "../DatasetFiles.ts"
import { withImages } from "../DatasetFiles.ts"

const record = (body: Record<string, unknown>): RecordData =>
  ({ recordId: "r", round: 1, format: "sft", trajectoryIds: ["t"], taskId: "k", body, blobs: [] }) as unknown as RecordData

test.each([
  ["marked, with marks: the marked images, and no marked_images key", "marked", { images: ["p"], marked_images: ["m"] }, { images: ["m"] }],
  ["plain, with marks: as emitted", "plain", { images: ["p"], marked_images: ["m"] }, { images: ["p"], marked_images: ["m"] }],
  ["marked, without marks: as emitted", "marked", { images: ["p"] }, { images: ["p"] }]
] as const)("given %s", (_, choice, body, expected) => {
  expect(withImages(record({ ...body }), choice).body).toEqual(expected)
})
