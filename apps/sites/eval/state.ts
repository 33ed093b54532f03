/**
 * Ground truth for checkers. EVALUATION CODE ONLY: policies, label functions and anything
 * they import must never import this module or call `/__core/state` — they see the task
 * instruction and observations, nothing else (tests/boundaries.test.ts enforces it).
 * The server also refuses state requests without its state token, so a browser cannot read it.
 */
import { STATE_TOKEN_HEADER } from "../framework/server.ts"

export interface Snapshot<State, Base = never> {
  readonly tenant: string
  readonly site: string
  readonly seed: number
  readonly state: State
  /** Present only when asked for with `base: true`. */
  readonly base?: Base
}

export interface StateApi {
  readonly origin: string
  readonly stateToken: string
}

/** The episode's current state (and, with `base`, its seed-derived data such as the catalog). */
export const fetchState = async <State, Base = never>(
  api: StateApi,
  tenant: string,
  opts: { base?: boolean } = {}
): Promise<Snapshot<State, Base>> => {
  const res = await fetch(`${api.origin}/__core/state/${encodeURIComponent(tenant)}${opts.base ? "?base=1" : ""}`, {
    headers: { [STATE_TOKEN_HEADER]: api.stateToken }
  })
  if (!res.ok) throw new Error(`state of episode ${tenant}: HTTP ${res.status} ${await res.text()}`)
  return (await res.json()) as Snapshot<State, Base>
}
