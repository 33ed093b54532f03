/**
 * The JavaScript that runs *inside* QuickJS, beside the prelude and the label functions.
 *
 * Every LF in a worker shares one QuickJS context (loading a trajectory once per LF would
 * cost more than evaluating it), so nothing an LF can reach may carry state from one
 * evaluation to the next: that would make a verdict depend on what ran before it in the
 * same process, and let one hostile LF poison another's verdicts. Hence `HARDEN`, run after
 * the prelude: it removes what is nondeterministic and deep-freezes every object reachable
 * from the global object or from an instance of anything (intrinsics, the prototypes no
 * global leads to, the prelude's functions). Trajectories are deep-frozen as they load, an
 * LF's top-level code runs afresh for every evaluation (`run` calls its factory each time),
 * so its own closures start clean, and the factory itself is deep-frozen when compiled.
 */

/** The file name QuickJS puts in an LF's error locations. */
export const LF_FILE = "labelFunction.js"

/**
 * An LF compiled as the body of a factory, so its top-level declarations stay out of the
 * shared global scope. The source was first checked to compile as a script on its own, so
 * it cannot close the wrapper early; the prefix keeps its line numbers.
 */
export const wrapLf = (code: string): string =>
  `(function () {${code}\n;return typeof labelFunction === "function" ? labelFunction : undefined})`

/**
 * Evaluates (before the prelude, so with pristine intrinsics) to a frozen array of the
 * helpers the host calls by handle. None of them is reachable from the global object.
 */
export const HELPERS = `(() => {
  "use strict"
  const freeze = Object.freeze, isArray = Array.isArray, parse = JSON.parse, keys = Object.keys
  const gopd = Object.getOwnPropertyDescriptor, gpo = Object.getPrototypeOf
  const isFrozen = Object.isFrozen, ownKeys = Reflect.ownKeys
  const noLf = freeze({})
  // Deep-freezes a new object down to what is frozen already. An LF's factory is shared by
  // all its evaluations, and so is its \`prototype\`: top-level code reaches both through
  // \`arguments.callee\`. What it links to beyond them was deep-frozen by HARDEN.
  const harden = (root) => {
    const stack = [root]
    while (stack.length > 0) {
      const o = stack.pop()
      if ((typeof o !== "object" && typeof o !== "function") || o === null || isFrozen(o)) continue
      freeze(o)
      stack.push(gpo(o))
      for (const k of ownKeys(o)) {
        const d = gopd(o, k)
        if ("value" in d) stack.push(d.value)
        else stack.push(d.get, d.set)
      }
    }
    return root
  }
  const load = (json) => {
    const root = parse(json)
    const stack = [root]
    while (stack.length > 0) {
      const v = stack.pop()
      if (typeof v !== "object" || v === null) continue
      freeze(v)
      if (isArray(v)) for (let i = 0; i < v.length; i++) stack.push(v[i])
      else for (const k of keys(v)) stack.push(v[k])
    }
    return root
  }
  const stepCount = (t) => (t !== null && typeof t === "object" && isArray(t.steps) ? t.steps.length : -1)
  const prefix = (t, k) => freeze({ ...t, steps: freeze(t.steps.slice(0, k)) })
  const run = (factory, t) => {
    const f = factory()
    if (typeof f !== "function") throw noLf
    return f(t)
  }
  const cut = (s, n) => (s.length > n ? s.slice(0, n) + "…" : s)
  // Reads a data property along the prototype chain without running getters: the
  // exception is the LF's object, and describing it must not run its code.
  const data = (o, k) => {
    for (let i = 0; i < 32 && o !== null; i++) {
      const d = gopd(o, k)
      if (d !== undefined) return "value" in d ? d.value : undefined
      o = gpo(o)
    }
    return undefined
  }
  const describe = (e) => {
    if (typeof e === "string") return cut(e, 300)
    if (typeof e === "symbol") return "a symbol"
    if (e === null || (typeof e !== "object" && typeof e !== "function")) return String(e)
    const name = data(e, "name"), message = data(e, "message"), stack = data(e, "stack")
    let text = typeof name === "string" ? cut(name, 80) : "an object"
    if (typeof message === "string") text += ": " + cut(message, 300)
    const at = typeof stack === "string" ? /\\(?([^()\\s]+:\\d+:\\d+)\\)?/.exec(stack.slice(0, 500)) : null
    if (at !== null) text += " (at " + at[1] + ")"
    return text.replace(/\\s*\\n\\s*/g, " ")
  }
  return freeze([load, stepCount, prefix, run, describe, noLf, harden])
})()`

/**
 * Run once per context, after the prelude. `Math.random` and weak references would make a
 * verdict depend on chance or on the garbage collector; `Date` is never created.
 */
export const HARDEN = `(() => {
  "use strict"
  delete Math.random
  delete globalThis.WeakRef
  delete globalThis.FinalizationRegistry
  const gpo = Object.getPrototypeOf, gopd = Object.getOwnPropertyDescriptor, ownKeys = Reflect.ownKeys, freeze = Object.freeze
  const roots = [globalThis]
  // Intrinsics no global property leads to, only an instance's prototype chain: a kind of
  // instance a QuickJS upgrade adds needs its line here (test/Carryover.test.ts reads them all).
  const hidden = [
    () => gpo(function* () {}),
    () => gpo(async function () {}),
    () => gpo(async function* () {}),
    () => gpo((function* () {})()),
    () => gpo((async function* () {})()),
    () => gpo([][Symbol.iterator]()),
    () => gpo(new Map()[Symbol.iterator]()),
    () => gpo(new Set()[Symbol.iterator]()),
    () => gpo(""[Symbol.iterator]()),
    () => gpo("a".matchAll(/a/g)),
    () => gpo([].values().map((x) => x)),
    () => gpo(Iterator.concat()),
    () => gpo(Iterator.from({ next() { return { done: true } } })),
    () => gopd(function () { "use strict"; return arguments }(), "callee").get
  ]
  for (const f of hidden) {
    try { roots.push(f()) } catch {}
  }
  const seen = new Set()
  while (roots.length > 0) {
    const o = roots.pop()
    if ((typeof o !== "object" && typeof o !== "function") || o === null || seen.has(o)) continue
    seen.add(o)
    freeze(o)
    roots.push(gpo(o))
    for (const k of ownKeys(o)) {
      const d = gopd(o, k)
      if (d === undefined) continue
      if ("value" in d) roots.push(d.value)
      else roots.push(d.get, d.set)
    }
  }
  return seen.size
})()`
