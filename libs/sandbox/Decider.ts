/**
 * Turns realm outcomes into verdicts that do not depend on the worker's history.
 *
 * The warm realm is fast because it keeps trajectories and compiled LFs across
 * evaluations, but two things it does are history-dependent:
 *
 * - QuickJS's interrupt counter is per context and not reset between calls, so the first
 *   interrupt of an evaluation comes after anywhere from 1 to 10,000 operations. A warm
 *   count can therefore be one more or one less than the count in a fresh context. The
 *   warm call is allowed `budget + 1` interrupts: stopped there, the LF is over budget
 *   whatever the phase; finishing with fewer than `budget`, it is within it. Only a call
 *   finishing with `budget` or `budget + 1` interrupts is ambiguous.
 * - The QuickJS memory limit counts everything the runtime holds, caches included.
 *
 * Ambiguous budgets and every out-of-memory are decided again in a fresh realm holding
 * only the prelude, this trajectory and this LF — a pure function of those inputs, so the
 * verdict is the same in any pool. Both are rare; an endless loop is stopped by the warm
 * realm at `budget + 2` interrupts and never re-run.
 */
import type { QuickJSWASMModule } from "quickjs-emscripten"
import { Realm } from "./Realm.ts"
import type { RealmSettings } from "./Realm.ts"
import type { Verdict } from "./Verdict.ts"

export interface DeciderSettings extends RealmSettings {
  readonly budget: number
  readonly deadlineMs: number
}

export class Decider {
  private warm: Realm | null = null

  constructor(
    private readonly module: QuickJSWASMModule,
    private readonly settings: DeciderSettings
  ) {}

  /** Builds the warm realm now, so a prelude that does not load fails at start-up (`SetupError`). */
  warmUp() {
    this.realm()
  }

  private realm(): Realm {
    this.warm ??= Realm.create(this.module, this.settings)
    return this.warm
  }

  /** `beforeFresh` runs before a re-decision, which may take as long again as the first call. */
  decide(code: string, key: string, json: string, prefix: number, beforeFresh: () => void): Verdict {
    const { budget, deadlineMs } = this.settings
    const outcome = this.realm().evaluate(code, key, json, prefix, { interrupts: budget + 1, budget, deadlineMs })
    if (outcome.spoiled) this.drop()
    if (outcome.stop === "budget" || outcome.verdict.kind === "infra-error") return outcome.verdict
    if (!outcome.oom && outcome.interrupts < budget) return outcome.verdict
    beforeFresh()
    const fresh = Realm.create(this.module, this.settings)
    try {
      return fresh.evaluate(code, key, json, prefix, { interrupts: budget, budget, deadlineMs }).verdict
    } finally {
      fresh.dispose()
    }
  }

  private drop() {
    const warm = this.warm
    this.warm = null
    warm?.dispose()
  }

  dispose() {
    this.drop()
  }
}
