/**
 * The sandbox every label function runs in, live and in replay: the LF API as its prelude,
 * so an LF reads the same helpers wherever it is evaluated.
 *
 * @example
 * drive({ … }).pipe(Effect.provide(Layer.mergeAll(labelSandbox(), …)))
 */
import { LF_API_SOURCE } from "@core/domain"
import { Sandbox } from "@core/sandbox"

/** The LF API as prelude, defaults otherwise. */
export const labelSandbox = (options: { readonly workers?: number } = {}) => Sandbox.layer({ prelude: LF_API_SOURCE, ...options })
