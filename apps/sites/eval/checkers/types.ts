/** What a ground-truth checker gets and returns. EVALUATION CODE ONLY (see ../state.ts). */
import type { StateApi } from "../state.ts"

export interface CheckInput {
  /** The sites server's origin and state token. */
  readonly api: StateApi
  /** The episode the agent acted in. */
  readonly tenant: string
  /** The task instance's parameters, as in its suite file. */
  readonly parameters: Readonly<Record<string, string | number>>
  /** The agent's final answer, for information-seeking tasks. */
  readonly answer?: string | null
  /** The status the agent set at the end. */
  readonly status?: "complete" | "infeasible" | null
  /** The URL the agent ended on (absolute or site path), for navigation tasks. */
  readonly finalUrl?: string | null
}

export interface Verdict {
  readonly success: boolean
  /** One line a person can act on: what was expected and what was found. */
  readonly reason: string
}

export type Checker = (input: CheckInput) => Promise<Verdict>
