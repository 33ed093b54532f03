/**
 * `@core/sandbox`: label functions run as untrusted code, in QuickJS inside a pool of
 * killable child processes (docs/sandbox.md has the contract).
 */
export { DEFAULTS, make, Sandbox, SandboxError } from "./Sandbox.ts"
export type { SandboxOptions } from "./Sandbox.ts"
export type { EvalRequest, Verdict } from "./Verdict.ts"
