/**
 * Building blocks for scripted solutions: finders by role + accessible name and the steps
 * made from them. Shared by every site's scripts so a script reads as what a person does.
 */
import type { Find, Step } from "./Runner.ts"

export type Params = Readonly<Record<string, string | number>>

/** A regex matching exactly `text`. */
export const exact = (text: string): RegExp => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`)
export const link = (name: RegExp, more: Partial<Find> = {}): Find => ({ role: "link", name, ...more })
export const button = (name: RegExp, more: Partial<Find> = {}): Find => ({ role: "button", name, ...more })
export const click = (find: Find): Step => ({ kind: "click", find })
export const type = (find: Find, text: string, submit = false): Step => ({ kind: "type", find, text, submit })
export const select = (find: Find, value: string): Step => ({ kind: "select", find, value })
export const done: Step = { kind: "status", status: "complete" }
export const infeasible: Step = { kind: "status", status: "infeasible" }
/** A parameter as text. */
export const s = (p: Params, k: string): string => String(p[k])
