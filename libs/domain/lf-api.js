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

/** A string matches by normalised equality; a RegExp by `test`; null/undefined matches anything. */
function textMatches(actual, expected) {
  if (expected === undefined || expected === null) return true
  if (expected instanceof RegExp) return expected.test(String(actual == null ? "" : actual))
  return norm(actual) === norm(expected)
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

function elementMatches(e, role, name, props) {
  if (role !== undefined && role !== null && norm(e.role) !== norm(role)) return false
  if (!textMatches(e.name, name)) return false
  if (props) {
    if (props.text !== undefined && !textMatches(e.text, props.text)) return false
    if (props.value !== undefined && !textMatches(e.value, props.value)) return false
    if (props.checked !== undefined && e.checked !== props.checked) return false
  }
  return true
}

/** The first element on the page after `step` with this role, name and state, or null. */
function findElement(step, role, name, props) {
  var list = step && step.elements
  if (!list) return null
  for (var i = 0; i < list.length; i++) if (elementMatches(list[i], role, name, props)) return list[i]
  return null
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
  for (var i = 0; i < t.steps.length; i++) {
    var s = t.steps[i]
    if (s.index < from) continue
    if (!test(s)) continue
    if (opts) {
      if (opts.urlBefore !== undefined && !urlMatches(s.urlBefore, opts.urlBefore)) continue
      if (opts.urlAfter !== undefined && !urlMatches(s.urlAfter, opts.urlAfter)) continue
      if (opts.where && !opts.where(s, t)) continue
    }
    return s.index
  }
  return -1
}

/** A click (or long press with `opts.longPress`) on an element with this role and name. */
function validateClick(t, role, name, opts) {
  var kind = opts && opts.longPress ? "long_press" : "click"
  return firstStep(t, opts, function (s) {
    return s.action.kind === kind && (role == null || norm(s.action.role) === norm(role)) && textMatches(s.action.name, name)
  })
}

/** Typing `text` into the field named `field` (`opts.submit`: Enter must follow). */
function validateType(t, text, field, opts) {
  return firstStep(t, opts, function (s) {
    if (s.action.kind !== "type") return false
    if (opts && opts.submit !== undefined && s.action.submit !== opts.submit) return false
    return textMatches(s.action.typed, text) && textMatches(s.action.name, field)
  })
}

/** Choosing `value` in the select (combobox, listbox) named `field`. */
function validateSelect(t, value, field, opts) {
  return firstStep(t, opts, function (s) {
    return s.action.kind === "select" && textMatches(s.action.value, value) && textMatches(s.action.name, field)
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
  return firstStep(t, opts, function (s) {
    return urlMatches(s.urlAfter, pattern)
  })
}

/** The first step after which the page shows an element with this role, name and state (`{text, value, checked}`). */
function validateElement(t, role, name, props, opts) {
  return firstStep(t, opts, function (s) {
    return hasElement(s, role, name, props)
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

/** The step that set the task's status ("complete" or "infeasible"); only the last status counts. */
function validateStatus(t, status, opts) {
  for (var i = t.steps.length - 1; i >= 0; i--) {
    var s = t.steps[i]
    if (s.action.kind !== "status") continue
    if (opts && typeof opts.from === "number" && s.index < opts.from) return -1
    return norm(s.action.status) === norm(status) ? s.index : -1
  }
  return -1
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
