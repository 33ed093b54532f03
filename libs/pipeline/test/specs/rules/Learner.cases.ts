/**
 * The learner axis's cases: training at each version on one task's states — a demo of two
 * steps, a verified rollout as short, and an explorer episode that reached the goal after a
 * detour (four steps) — and how many states the learner trains on.
 */
import { learnerRulesAt } from "@core/domain"
import { prepare } from "@core/learner"
import type { LearnerExample } from "@core/learner"
import type { Table } from "./Cases.ts"

const link = (id: string, name: string) => ({
  id,
  role: "link",
  name,
  text: name,
  value: null,
  checked: null,
  enabled: true,
  visible: true,
  inViewport: true
})

/** `steps` states of one trajectory of task t, each clicking the first link. */
const trajectory = (source: string, steps: number, expert: boolean): ReadonlyArray<LearnerExample> =>
  Array.from({ length: steps }, (_, step) => ({
    recordId: `${source}-${step}`,
    screen: {
      instruction: "Open the Books category",
      url: "/shop",
      title: "Shop",
      elements: [link("e1", "Books"), link("e2", "Toys")],
      history: [],
      step
    },
    chosen: { kind: "click", elementId: "e1" },
    rejected: [],
    taskId: "t",
    source,
    expert,
    text: null
  }))

const states = [...trajectory("demo", 2, true), ...trajectory("r1-s0-t", 2, false), ...trajectory("x1-s0-t", 4, false)]

export const learner: Table["learner"] = {
  skipsDetours: { run: (v) => prepare(states, "task", [], learnerRulesAt(v)).length, before: 8, after: 4 }
}
