/**
 * The commit id is computed on the append hot path without the canonical-JSON walk; it must
 * stay byte for byte `digest([stream, ids])`, or a retry after an upgrade would no longer
 * recognise a commit that already landed.
 */
import { expect, test } from "bun:test"
import { digest, runStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import { commitId } from "../EventStore.ts"
import { job } from "./conformance.ts"

test("commitId is digest([stream, event ids])", () => {
  const s = runStream("r1", "job", "a")
  const events = [job("r1", s, 0), job("r1", s, 1), job("r1", s, 2)]
  expect(commitId(s, events)).toBe(digest([s, events.map((e) => e.id)]))
  expect(commitId(s, events.slice(0, 1))).toBe(digest([s, [events[0]!.id]]))
})

test("commitId agrees with digest on strings JSON must escape", () => {
  const odd = ['quote"back\\slash', "tab\tnew\nline", "ünïcödé ✓ 𝄞", "\u0001\u001f", "\u2028\u2029"]
  const events = odd.map((id) => ({ id }) as unknown as CoreEvent)
  expect(commitId('run.r"1.x.y', events)).toBe(digest(['run.r"1.x.y', odd]))
})
