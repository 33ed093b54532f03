// CORE label-function API, version 1 (libs/domain/LF-API.md has the guide and examples).
//
// A plain script: no imports, no exports, no host objects, so the very same text runs in
// the QuickJS sandbox (as a prelude) and natively (benchmarks, tests). Every helper
// returns the index of the step that satisfies it, or -1: a verdict always carries the
// step that earned it, and the strategy graph can check the order in which LFs hold.
//
// Helpers read `step.index` rather than array positions, so a view of a trajectory that
// starts later (`fromStep`) still reports the trajectory's own step numbers.

var LF_API_VERSION = "1"

/** Lower case, whitespace collapsed, trimmed: how names and typed text are compared. */
function norm(s) {
  return String(s == null ? "" : s).replace(/\s+/g, " ").trim().toLowerCase()
}

/**
 * A test for one expected text, prepared once per helper call: a string matches by
 * normalised equality, a RegExp by `test`, null/undefined matches anything. Trajectory
 * strings arrive whitespace-collapsed (LfTrajectory.ts), so the actual side only needs
 * lower-casing — the helpers run over every element of every step, and this is their cost.
 */
function textTest(expected) {
  if (expected === undefined || expected === null) return function () { return true }
  if (expected instanceof RegExp) return function (actual) { return expected.test(actual == null ? "" : String(actual)) }
  var want = norm(expected)
  return function (actual) {
    if (actual == null) return want === ""
    var a = String(actual)
    return a.length >= want.length && (a === want || a.toLowerCase() === want)
  }
}

/** A string matches by normalised equality; a RegExp by `test`; null/undefined matches anything. */
function textMatches(actual, expected) {
  return textTest(expected)(actual)
}

/** A URL pattern is a regular expression (source string or RegExp) over path + query. */
function urlMatches(url, pattern) {
  if (pattern === undefined || pattern === null) return true
  if (url === null || url === undefined) return false
  var re = pattern instanceof RegExp ? pattern : new RegExp(pattern)
  return re.test(url)
}

/** The number in a text ("$1,299.50" → 1299.5), or NaN. */
function numberIn(s) {
  var m = String(s == null ? "" : s).replace(/,/g, "").match(/-?\d+(\.\d+)?/)
  return m ? Number(m[0]) : NaN
}

/** A test for elements with this role, name and state (`{ text, value, checked }`), prepared once. */
function elementTest(role, name, props) {
  var r = role === undefined || role === null ? null : norm(role)
  var n = textTest(name)
  var tx = props && props.text !== undefined ? textTest(props.text) : null
  var v = props && props.value !== undefined ? textTest(props.value) : null
  var c = props && props.checked !== undefined ? props.checked : undefined
  return function (e) {
    if (r !== null && e.role !== r && String(e.role).toLowerCase() !== r) return false
    if (!n(e.name)) return false
    if (tx !== null && !tx(e.text)) return false
    if (v !== null && !v(e.value)) return false
    if (c !== undefined && e.checked !== c) return false
    return true
  }
}

function elementMatches(e, role, name, props) {
  return elementTest(role, name, props)(e)
}

function findWith(step, test) {
  var list = step && step.elements
  if (!list) return null
  for (var i = 0; i < list.length; i++) if (test(list[i])) return list[i]
  return null
}

/** The first element on the page after `step` with this role, name and state, or null. */
function findElement(step, role, name, props) {
  return findWith(step, elementTest(role, name, props))
}

/** True when the page after `step` shows such an element. */
function hasElement(step, role, name, props) {
  return findElement(step, role, name, props) !== null
}

/** The step before `step` in `t`, or null for the first. */
function previousStep(t, step) {
  var at = t.steps.indexOf(step)
  return at > 0 ? t.steps[at - 1] : null
}

/**
 * The first step (at or after `opts.from`) that `test` accepts, also honouring the common
 * options: `urlBefore` / `urlAfter` (patterns) and `where(step, t)` (state evidence).
 */
function firstStep(t, opts, test) {
  var from = opts && typeof opts.from === "number" ? opts.from : 0
  var before = opts && opts.urlBefore != null ? (opts.urlBefore instanceof RegExp ? opts.urlBefore : new RegExp(opts.urlBefore)) : null
  var after = opts && opts.urlAfter != null ? (opts.urlAfter instanceof RegExp ? opts.urlAfter : new RegExp(opts.urlAfter)) : null
  var where = opts && opts.where ? opts.where : null
  for (var i = 0; i < t.steps.length; i++) {
    var s = t.steps[i]
    if (s.index < from) continue
    if (!test(s)) continue
    if (before !== null && (s.urlBefore == null || !before.test(s.urlBefore))) continue
    if (after !== null && (s.urlAfter == null || !after.test(s.urlAfter))) continue
    if (where !== null && !where(s, t)) continue
    return s.index
  }
  return -1
}

/** A click (or long press with `opts.longPress`) on an element with this role and name. */
function validateClick(t, role, name, opts) {
  var kind = opts && opts.longPress ? "long_press" : "click"
  var r = role == null ? null : norm(role)
  var n = textTest(name)
  return firstStep(t, opts, function (s) {
    return s.action.kind === kind && (r === null || (s.action.role != null && s.action.role.toLowerCase() === r)) && n(s.action.name)
  })
}

/**
 * Typing `text` into the field named `field` (`opts.submit`: Enter must follow). An insert
 * matches by the text it inserted, never the field's whole content; `opts.mode` ("fill" or
 * "insert") asks for one kind of typing.
 */
function validateType(t, text, field, opts) {
  var typed = textTest(text)
  var f = textTest(field)
  var mode = opts && opts.mode != null ? String(opts.mode) : null
  return firstStep(t, opts, function (s) {
    if (s.action.kind !== "type") return false
    if (opts && opts.submit !== undefined && s.action.submit !== opts.submit) return false
    if (mode !== null && (s.action.mode === "insert" ? "insert" : "fill") !== mode) return false
    return typed(s.action.typed) && f(s.action.name)
  })
}

/** Choosing `value` in the select (combobox, listbox) named `field`. */
function validateSelect(t, value, field, opts) {
  var v = textTest(value)
  var f = textTest(field)
  return firstStep(t, opts, function (s) {
    return s.action.kind === "select" && v(s.action.value) && f(s.action.name)
  })
}

/** Pressing `key` ("Enter", "Escape", …); a typed text submitted with Enter counts for "Enter". */
function validateKey(t, key, opts) {
  return firstStep(t, opts, function (s) {
    if (s.action.kind === "key") return norm(s.action.key) === norm(key)
    return s.action.kind === "type" && s.action.submit === true && norm(key) === "enter"
  })
}

/** The first step after which the URL (path + query) matches `pattern`. */
function validateUrl(t, pattern, opts) {
  var re = pattern instanceof RegExp ? pattern : new RegExp(pattern)
  return firstStep(t, opts, function (s) {
    return s.urlAfter != null && re.test(s.urlAfter)
  })
}

/** The first step after which the page shows an element with this role, name and state (`{text, value, checked}`). */
function validateElement(t, role, name, props, opts) {
  var test = elementTest(role, name, props)
  return firstStep(t, opts, function (s) {
    return findWith(s, test) !== null
  })
}

/**
 * What changed between two texts: the longest common start (`head`) and end (`tail`) kept,
 * what lay between them in `before` (`removed`) and in `after` (`inserted`).
 * @example textChange("a b", "a b c") // { head: "a b", removed: "", inserted: " c", tail: "" }
 */
function textChange(before, after) {
  var a = String(before == null ? "" : before)
  var b = String(after == null ? "" : after)
  var p = 0
  while (p < a.length && p < b.length && a.charAt(p) === b.charAt(p)) p++
  var q = 0
  while (q < a.length - p && q < b.length - p && a.charAt(a.length - 1 - q) === b.charAt(b.length - 1 - q)) q++
  return { head: a.slice(0, p), removed: a.slice(p, a.length - q), inserted: b.slice(p, b.length - q), tail: a.slice(a.length - q) }
}

/** Does an observed change make the expected edit: the same text out and in, at the same place? */
function sameEdit(change, edit) {
  var before = String(edit.before == null ? "" : edit.before)
  var after = String(edit.after == null ? "" : edit.after)
  if (change.removed !== String(edit.removed == null ? "" : edit.removed)) return false
  if (change.inserted !== String(edit.inserted == null ? "" : edit.inserted)) return false
  // "" is the field's very start or end; otherwise the text the edit sits beside.
  if (before === "" ? change.head !== "" : change.head.slice(change.head.length - before.length) !== before) return false
  return after === "" ? change.tail === "" : change.tail.slice(0, after.length) === after
}

/**
 * A text field's edit judged by what it made, whatever keys made it: the first step after
 * which the field (`role`, `name`) holds the value its page first showed with
 * `edit.removed` replaced by `edit.inserted`, right after `edit.before` and right before
 * `edit.after` ("" for the field's start or end). Values compare as the trajectory holds
 * them (white space collapsed), case and all. With `edit.shown` (a pattern), a later step's
 * page must show it in another element's text or value: the saved page carries the edit.
 * With `edit.once`, the field's last value on that page must hold the inserted text as
 * often as the edit left it: the same text inserted again before the page moved on (typed
 * twice) is not the edit. With `edit.next` (`{ role, name }`), the field is the first of its
 * role and name listed right before such an element (a table row's value box before its
 * "remove field"): fields that share a name are told apart by what stands beside them. The
 * embedded synthesizer writes it from version 5 on (`once` from 9, `next` from 11); the
 * guide a model is shown (LF-API.md, a recorded prompt) does not list it yet.
 */
function validateEdit(t, role, name, edit, opts) {
  var field = elementTest(role, name)
  var next = edit.next == null ? null : elementTest(edit.next.role, edit.next.name)
  // With `next`, the field is the first of its role and name that the page lists right before such an element.
  var find = function (s) {
    if (next === null) return findWith(s, field)
    var list = (s && s.elements) || []
    for (var j = 0; j + 1 < list.length; j++) if (field(list[j]) && next(list[j + 1])) return list[j]
    return null
  }
  var shown = edit.shown == null ? null : textTest(edit.shown)
  // A view from a later step (`fromStep`) cannot tell which page its start elements were on.
  var whole = t.steps.length > 0 && t.steps[0].index === 0
  var initial = whole && t.initialElements ? find({ elements: t.initialElements }) : null
  // The field's value as the current page first showed it; a page reached anew starts over.
  var origin = initial ? initial.value : null
  var edited = {}
  // With `once`: each step's value and page, and the last value each page showed.
  var once = edit.once === true && String(edit.inserted == null ? "" : edit.inserted) !== ""
  var valueAt = {}
  var pageAt = {}
  var lastOn = []
  var page = 0
  for (var i = 0; i < t.steps.length; i++) {
    var s = t.steps[i]
    if (s.urlAfter !== s.urlBefore) {
      origin = null
      page++
    }
    var e = find(s)
    if (e === null || e.value == null) continue
    valueAt[s.index] = e.value
    pageAt[s.index] = page
    lastOn[page] = e.value
    if (origin === null) origin = e.value
    else if (sameEdit(textChange(origin, e.value), edit)) edited[s.index] = true
  }
  var times = function (text, part) {
    return String(text).split(part).length - 1
  }
  var showsIt = function (s) {
    var list = s.elements || []
    for (var j = 0; j < list.length; j++) {
      var x = list[j]
      if (field(x)) continue
      if (shown(x.text) || (x.value != null && shown(x.value))) return true
    }
    return false
  }
  return firstStep(t, opts, function (s) {
    if (!edited[s.index]) return false
    if (once && times(lastOn[pageAt[s.index]], edit.inserted) !== times(valueAt[s.index], edit.inserted)) return false
    if (shown === null) return true
    for (var j = 0; j < t.steps.length; j++) if (t.steps[j].index > s.index && showsIt(t.steps[j])) return true
    return false
  })
}

/**
 * The last answer given, if it matches `expected`: numbers compare as numbers ("$42.00"
 * = 42), text by normalised equality, a RegExp by `test`. Only the last answer counts: an
 * agent that answers twice meant the second.
 */
function validateAnswer(t, expected, opts) {
  for (var i = t.steps.length - 1; i >= 0; i--) {
    var s = t.steps[i]
    if (s.action.kind !== "answer") continue
    if (opts && typeof opts.from === "number" && s.index < opts.from) return -1
    var got = s.action.answer
    if (expected instanceof RegExp) return expected.test(String(got)) ? s.index : -1
    if (typeof expected === "number" || /^\s*[-$€£]?\s*[\d,]+(\.\d+)?\s*$/.test(String(expected))) {
      return numberIn(got) === numberIn(expected) && !isNaN(numberIn(got)) ? s.index : -1
    }
    return norm(got) === norm(expected) ? s.index : -1
  }
  return -1
}

/**
 * The step that set the task's status ("complete" or "infeasible"); only the last status
 * counts. `urlBefore` (a pattern) asks that it was declared on that page: a run that
 * reached the goal and wandered off before saying "complete" did not finish there.
 */
function validateStatus(t, status, opts) {
  var before = opts && opts.urlBefore != null ? (opts.urlBefore instanceof RegExp ? opts.urlBefore : new RegExp(opts.urlBefore)) : null
  for (var i = t.steps.length - 1; i >= 0; i--) {
    var s = t.steps[i]
    if (s.action.kind !== "status") continue
    if (opts && typeof opts.from === "number" && s.index < opts.from) return -1
    if (before !== null && (s.urlBefore == null || !before.test(s.urlBefore))) return -1
    return norm(s.action.status) === norm(status) ? s.index : -1
  }
  return -1
}

/** The amount a page shows once after `label` on an element of `role` ("Checking 3,765.50" → 3765.5), else null. */
function figureOn(list, role, label) {
  var found = null
  var count = 0
  var re = /^(.*\p{L}.*?)\s+\(?([-\u2212+]?)[$\u20ac\u00a3]?\s?(\d[\d,]*(?:\.\d+)?)\)?$/u
  for (var i = 0; list && i < list.length; i++) {
    if (list[i].role !== role) continue
    var m = re.exec(String(list[i].name).trim())
    if (!m || m[1] !== label) continue
    var v = Number(m[3].replace(/,/g, ""))
    found = m[2] === "-" || m[2] === "\u2212" ? -v : v
    count++
  }
  return count === 1 ? found : null
}

/**
 * True when the amount after `label` ("Checking 3,765.50") moved by `by` over `t`: from the
 * first page that shows it to the last. A difference, so it holds from any starting amount.
 * @example figureMoved(t, "link", "Checking", -18.4)
 */
function figureMoved(t, role, label, by) {
  var first = figureOn(t.initialElements, role, label)
  var last = first
  for (var i = 0; i < t.steps.length; i++) {
    var v = figureOn(t.steps[i].elements, role, label)
    if (v === null) continue
    if (first === null) first = v
    last = v
  }
  return first !== null && Math.abs(last - first - by) < 0.005
}

// ---- ordering -------------------------------------------------------------------------

/** The last index when every index is found and they strictly increase, else -1. */
function inOrder() {
  var last = -1
  for (var i = 0; i < arguments.length; i++) {
    var at = arguments[i]
    if (typeof at !== "number" || at < 0 || at <= last) return -1
    last = at
  }
  return last
}

/** The largest index when every index is found (any order), else -1. */
function allOf() {
  var last = -1
  for (var i = 0; i < arguments.length; i++) {
    var at = arguments[i]
    if (typeof at !== "number" || at < 0) return -1
    if (at > last) last = at
  }
  return last
}

/** The smallest found index, or -1 when none is found. */
function anyOf() {
  var first = -1
  for (var i = 0; i < arguments.length; i++) {
    var at = arguments[i]
    if (typeof at === "number" && at >= 0 && (first < 0 || at < first)) first = at
  }
  return first
}

/**
 * Chains evidence in order: when `index` was found, `next(index + 1)` looks from the step
 * after it (pass it as `opts.from`); -1 propagates.
 * @example after(validateClick(t, "link", "Cart"), function (from) { return validateUrl(t, "^/cart", { from: from }) })
 */
function after(index, next) {
  return typeof index === "number" && index >= 0 ? next(index + 1) : -1
}

/** A view of `t` from step `from` on (indices unchanged): what an ordered check hands the next LF. */
function fromStep(t, from) {
  var steps = []
  for (var i = 0; i < t.steps.length; i++) if (t.steps[i].index >= from) steps.push(t.steps[i])
  return { steps: steps, startUrl: t.startUrl, initialElements: t.initialElements }
}
