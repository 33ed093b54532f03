/**
 * Label functions that write to everything they can reach, and one that reads all of it,
 * interleaved twice in one worker: no write survives its evaluation. Reaching only from the
 * global object is not enough — an LF also gets at objects through its own function
 * (`arguments.callee`), through instances (an iterator's prototype chain) and through
 * engine state that is no object at all (RegExp statics, the symbol registry).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Verdict } from "../mod.ts"
import { startPool, T5 } from "./support/Fixtures.ts"
import type { TestPool } from "./support/Fixtures.ts"

/**
 * Objects every evaluation shares (or would, if the sandbox leaked): each must be frozen,
 * and none may carry a mark. Evaluated inside an LF, where `gpo` is defined.
 */
const SHARED = `[
  ["Object.prototype", function () { return ({}).__proto__ }],
  ["Array.prototype", function () { return [].__proto__ }],
  ["Function.prototype", function () { return (function () {}).__proto__ }],
  ["globalThis", function () { return globalThis }],
  ["sloppy this", function () { return (function () { return this })() }],
  ["prelude function", function () { return validateClick }],
  ["prelude prototype", function () { return validateClick.prototype }],
  ["Iterator.concat", function () { return gpo(Iterator.concat([])) }],
  ["Iterator.concat of two", function () { return gpo(Iterator.concat([1], [2])) }],
  ["iterator map", function () { return gpo([].values().map(function (x) { return x })) }],
  ["iterator filter", function () { return gpo([].values().filter(function (x) { return x })) }],
  ["iterator take", function () { return gpo([].values().take(1)) }],
  ["iterator flatMap", function () { return gpo([].values().flatMap(function (x) { return [x] })) }],
  ["Iterator.from wrap", function () { return gpo(Iterator.from({ next: function () { return { done: true } } })) }],
  ["Iterator.prototype", function () { return gpo(gpo([].values())) }],
  ["generator", function () { return gpo(gpo((function* () {})())) }],
  ["async generator", function () { return gpo(gpo((async function* () {})())) }],
  ["async iterator", function () { return gpo(gpo(gpo((async function* () {})()))) }],
  ["generator function", function () { return gpo(function* () {}) }],
  ["async generator function", function () { return gpo(async function* () {}) }],
  ["async function", function () { return gpo(async function () {}) }],
  ["array iterator", function () { return gpo([].values()) }],
  ["map iterator", function () { return gpo(new Map().keys()) }],
  ["set iterator", function () { return gpo(new Set().values()) }],
  ["string iterator", function () { return gpo(Iterator.from("ab")) }],
  ["regexp string iterator", function () { return gpo("a".matchAll(/a/g)) }],
  ["ThrowTypeError", function () { return Object.getOwnPropertyDescriptor(function () { "use strict"; return arguments }(), "callee").get }],
  ["template object", function () { return (function (s) { return s })\`x\` }],
  ["WeakMap.prototype", function () { return WeakMap.prototype }],
  ["Promise.prototype", function () { return Promise.prototype }],
  ["Error", function () { return Error }],
  ["RegExp", function () { return RegExp }],
  ["Math", function () { return Math }],
  ["Symbol", function () { return Symbol }]
]`

/**
 * What is not an object's own property: reads of engine state an LF could set.
 * `Symbol.for` is listed though its registry cannot carry anything: a key gives the same
 * symbol whether or not it was registered before, the registry cannot be listed, and a
 * registered symbol cannot be a weak-collection key.
 */
const STATE = `[
  ["RegExp statics", function () { return [RegExp.$1, RegExp.lastMatch, RegExp.input, RegExp["$_"], RegExp.leftContext] }],
  ["Math.random", function () { return typeof Math.random }],
  ["Date", function () { return typeof Date }],
  ["Error hooks", function () { return [typeof Error.prepareStackTrace, Error.stackTraceLimit, typeof Error.captureStackTrace] }],
  ["stack", function () { return new Error("x").stack.split("\\n").length }],
  ["weak references", function () { return [typeof WeakRef, typeof FinalizationRegistry] }],
  ["shared memory", function () { return [typeof Atomics, typeof SharedArrayBuffer] }],
  ["undeclared globals", function () { return [typeof __w1, typeof __w2, typeof __w3, typeof __w4, (0, eval)("typeof __w5")] }],
  ["symbol registry", function () { return Symbol.keyFor(Symbol.for("__w")) }]
]`

const COMMON = `
var gpo = Object.getPrototypeOf
var seen = 0
/** Sets bit i when mark i was already there: left by an earlier evaluation. */
function mark(i, get) {
  try {
    var o = get()
    var key = "__w" + i
    if (o[key] === 1) seen |= 1 << i
    try { o[key] = 1 } catch (e) {}
    try { Object.defineProperty(o, key, { value: 1, writable: true, configurable: true }) } catch (e) {}
  } catch (e) {}
}
`

/** Top-level code runs in the LF's factory: there \`arguments.callee\` is the factory itself. */
const OWN = `${COMMON}
var OWN_CALLEE = arguments.callee
mark(0, function () { return OWN_CALLEE })
mark(1, function () { return OWN_CALLEE.prototype })
var named = function named() { return named }
mark(2, function () { return named().prototype })
function labelFunction(t) {
  mark(3, function () { return labelFunction.prototype })
  var callee = arguments.callee
  mark(4, function () { return callee.prototype })
  mark(5, function () { return t })
  mark(6, function () { return t.steps[0].action })
  return seen
}`

/** Marks every shared object, then its whole prototype chain. */
const SHARED_WRITER = `${COMMON}
var places = ${SHARED}
places.forEach(function (p, i) {
  mark(i, p[1])
  try { for (var o = gpo(p[1]()); o !== null; o = gpo(o)) mark(i, function () { return o }) } catch (e) {}
})
function labelFunction(t) { return seen }`

const STATE_WRITER = `
var seen = 0
function check(i, was) { if (was) seen |= 1 << i }
check(0, RegExp.$1 === "__w" || RegExp.lastMatch === "__w");
/(__w)/.exec("__w")
try { RegExp.input = "__w" } catch (e) {}
check(1, typeof Math.random === "function")
try { Math.random = function () { return 0.25 } } catch (e) {}
check(2, typeof Date !== "undefined")
try { Date = function () {} } catch (e) {}
check(3, typeof Error.prepareStackTrace === "function" || Error.stackTraceLimit === 1)
try { Error.prepareStackTrace = function () { return "__w" } } catch (e) {}
try { Error.stackTraceLimit = 1 } catch (e) {}
check(4, typeof WeakRef !== "undefined")
try { globalThis.WeakRef = WeakMap } catch (e) {}
check(5, typeof __w1 !== "undefined")
try { __w1 = 1 } catch (e) {}
check(6, typeof __w2 !== "undefined")
try { (0, eval)("var __w2 = 1") } catch (e) {}
check(7, typeof __w3 !== "undefined")
try { (0, eval)("function __w3() {}") } catch (e) {}
check(8, typeof __w4 !== "undefined")
try { Function("__w4 = 1")() } catch (e) {}
check(9, (0, eval)("typeof __w5") !== "undefined")
try { (0, eval)("let __w5 = 1") } catch (e) {}
try { Object.getPrototypeOf([].values()).constructor = 1 } catch (e) {}
Symbol.for("__w")
function labelFunction(t) { return seen }`

/**
 * Returns a hash of everything it observes; throws naming any shared object that is not
 * frozen or carries a mark.
 */
const READER = `
var gpo = Object.getPrototypeOf
function labelFunction(t) {
  var shared = ${SHARED}, state = ${STATE}
  var wrong = [], seen = []
  shared.forEach(function (p) {
    for (var o = p[1](); o !== null; o = gpo(o)) {
      if (!Object.isFrozen(o)) wrong.push("unfrozen " + p[0])
      if (Reflect.ownKeys(o).some(function (k) { return String(k).startsWith("__w") })) wrong.push("marked " + p[0])
      seen.push(Reflect.ownKeys(o).map(String).join(","))
    }
  })
  state.forEach(function (p) { seen.push(p[0] + "=" + JSON.stringify(p[1]())) })
  seen.push(JSON.stringify(t))
  if (wrong.length > 0) throw wrong.join("; ")
  var text = seen.join(";"), h = 0
  for (var i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) % 1000000007
  return h
}`

const show = (v: Verdict): string => (v.kind === "ok" ? `ok ${v.satisfiedAt}` : `${v.kind}: ${v.reason}`)

describe("state between evaluations", () => {
  let pool: TestPool
  beforeAll(async () => {
    pool = await startPool({ workers: 1 })
  })
  afterAll(() => pool.dispose())

  test("writers leave nothing for themselves or for a reader, in one worker", async () => {
    const writers = [OWN, SHARED_WRITER, STATE_WRITER]
    const codes = [READER, ...writers, READER, ...writers, READER]
    const verdicts = (await pool.evaluateBatch(codes.map((code) => ({ code, trajectory: T5 })))).map(show)
    // Each writer finds no mark of its own earlier run, and each read sees what the first
    // one saw, before any write.
    const read = verdicts[0]!
    const clean = ["ok 0", "ok 0", "ok 0"]
    expect(verdicts).toEqual([read, ...clean, read, ...clean, read])
    // That first read is the pristine state: every shared object frozen, none marked.
    expect(read).toStartWith("ok ")
  })
})
