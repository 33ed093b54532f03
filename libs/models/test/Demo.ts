/** One expert demo's step descriptions, templated as the reference templates them. */
import type { StepDescription } from "../mod.ts"

export const instruction = "How long does the Black Garlic Ramen recipe take?"

export const descriptions: ReadonlyArray<StepDescription> = [
  { stepIndex: 0, kind: "click", text: "Click on a UI element 'Search' on the screen." },
  { stepIndex: 1, kind: "type", text: "Type text 'black garlic' into the 'Search in ALL RECIPES'." },
  { stepIndex: 2, kind: "scroll", text: "Scroll down on the screen." },
  { stepIndex: 3, kind: "click", text: "Click on a UI element 'Black Garlic Ramen' on the screen." },
  { stepIndex: 4, kind: "answer", text: "Answer user's question with text: '25 minutes'." }
]
