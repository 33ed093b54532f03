/**
 * An app CORE runs episodes on, as one service: its name, platform and tasks, and leases
 * on ready instances (Pool.ts). `CommandApp.layer` builds it from a pack folder; anything
 * else that can hand out instances (a fixed URL, a device farm) can provide it too.
 *
 * @example
 * const app = yield* App
 * const lease = yield* app.acquire()
 * yield* env.reset({ taskId: task.id, startUrl: taskUrl(lease.instance, task.start), origins: lease.origins })
 * yield* lease.release()
 */
import { Context } from "effect"
import type { Effect } from "effect"
import type { PackTask, Platform } from "./Format.ts"
import type { EvaluationResult, InstanceError } from "./Instance.ts"
import type { Lease } from "./Pool.ts"

export interface AppShape {
  readonly name: string
  readonly platform: Platform
  readonly tasks: ReadonlyArray<PackTask>
  /** A ready instance for one episode; release it when the episode ends. */
  acquire(): Effect.Effect<Lease, InstanceError>
  /**
   * The app's own verdict on an episode (exit 0 pass, 1 fail), when it has one: call it
   * before releasing the lease, while the instance still holds the episode's state. For
   * measurement only: policies and label functions never see it.
   */
  readonly evaluate?: (lease: Lease, taskId: string, answer: string) => Effect.Effect<EvaluationResult, InstanceError>
}

export class App extends Context.Service<App, AppShape>()("@core/apps/App") {}
