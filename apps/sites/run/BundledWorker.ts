/**
 * The app a worker serves when it serves the bundled sites: the sites started in the
 * worker's scope, every suite task playable by id (a pack's is @core/run's `packWorkerApp`).
 *
 * @example
 * const app = yield* (dir === undefined ? bundledWorkerApp() : packWorkerApp(dir, secrets))
 */
import { Effect } from "effect"
import type { Scope } from "effect"
import type { RunAppError, RunTask } from "@core/pipeline"
import type { WorkerApp } from "@core/workers"
import { bundledApp, runTaskOf } from "../app/mod.ts"
import { loadSuites } from "../suites/mod.ts"
import type { SuiteError } from "../suites/mod.ts"

export const bundledWorkerApp = (): Effect.Effect<WorkerApp, RunAppError | SuiteError, Scope.Scope> =>
  Effect.gen(function* () {
    const app = yield* bundledApp()
    const suites = yield* loadSuites()
    const tasks = new Map<string, RunTask>(suites.flatMap((s) => s.tasks).map((t) => [t.id, runTaskOf(t)]))
    return { app: { kind: "bundled" } as const, runApp: app, taskOf: (id: string) => tasks.get(id) }
  })
