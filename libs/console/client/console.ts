/// <reference lib="dom" />
/**
 * The console's only script, bundled by the server at start (no framework, nothing from a
 * CDN). Pages are complete without it; it adds what server-rendered HTML cannot:
 * - the arrow keys walk the steps of a `[data-steps]` block, one shown at a time, and the
 *   URL's hash follows, so a step can be linked and reloaded;
 * - `[data-toggle-marks]` switches every `img[data-plain][data-marked]` between the plain
 *   and the set-of-marks screenshot;
 * - on a `body[data-live]` page, each new event in the log re-fetches the page and replaces
 *   its `<main>`, keeping the step shown, the marks choice and the open disclosures.
 */

/** Whether the set-of-marks screenshots are shown; survives live updates. */
let marked = false

// ---- steps -------------------------------------------------------------------------

const stepsOf = (block: Element): Array<HTMLElement> => [...block.querySelectorAll<HTMLElement>(".step")]

const showStep = (block: Element, target: HTMLElement | undefined, updateHash: boolean): void => {
  const steps = stepsOf(block)
  const current = target ?? steps[0]
  if (current === undefined) return
  for (const s of steps) s.classList.toggle("current", s === current)
  // replaceState: walking twenty steps must not take twenty presses of Back.
  if (updateHash && current.id !== "") history.replaceState(null, "", `#${current.id}`)
}

/** The step the hash names, when it is one of this block's. */
const hashedStep = (block: Element): HTMLElement | undefined => {
  const id = decodeURIComponent(location.hash.slice(1))
  return stepsOf(block).find((s) => id !== "" && s.id === id)
}

const initSteps = (root: ParentNode): void => {
  for (const block of root.querySelectorAll("[data-steps]")) {
    block.classList.add("js-enabled")
    showStep(block, hashedStep(block), false)
  }
}

const typing = (el: EventTarget | null): boolean =>
  el instanceof HTMLElement && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName))

const onKey = (e: KeyboardEvent): void => {
  if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return
  if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || typing(e.target)) return
  const block = document.querySelector("[data-steps]")
  if (block === null) return
  const steps = stepsOf(block)
  const at = steps.findIndex((s) => s.classList.contains("current"))
  const next = steps[Math.min(steps.length - 1, Math.max(0, at + (e.key === "ArrowRight" ? 1 : -1)))]
  if (next === undefined || next === steps[at]) return
  e.preventDefault()
  showStep(block, next, true)
  next.scrollIntoView({ block: "nearest" })
}

const onHash = (): void => {
  for (const block of document.querySelectorAll("[data-steps]")) {
    const step = hashedStep(block)
    if (step !== undefined) showStep(block, step, false)
  }
}

// ---- set-of-marks toggle -------------------------------------------------------------

const applyMarks = (root: ParentNode): void => {
  for (const img of root.querySelectorAll<HTMLImageElement>("img[data-plain][data-marked]")) {
    const src = marked ? img.dataset.marked : img.dataset.plain
    if (src !== undefined && img.getAttribute("src") !== src) img.setAttribute("src", src)
  }
  for (const button of root.querySelectorAll<HTMLButtonElement>("[data-toggle-marks]")) {
    button.setAttribute("aria-pressed", String(marked))
    button.textContent = marked ? "show plain images" : "show set-of-marks images"
  }
}

const onClick = (e: MouseEvent): void => {
  const button = e.target instanceof Element ? e.target.closest("[data-toggle-marks]") : null
  if (button === null) return
  marked = !marked
  applyMarks(document)
}

// ---- live updates --------------------------------------------------------------------

const setStatus = (text: string): void => {
  for (const el of document.querySelectorAll("[data-live-status]")) el.textContent = text
}

/** Disclosures by their summary's text, so a re-rendered page opens the same ones. */
const openSummaries = (root: ParentNode): Set<string> =>
  new Set([...root.querySelectorAll("details[open] > summary")].map((s) => s.textContent ?? ""))

const swapIn = (fresh: Document): void => {
  const main = document.querySelector("main")
  const next = fresh.querySelector("main")
  if (main === null || next === null) return
  const open = openSummaries(main)
  main.replaceChildren(...next.childNodes)
  for (const s of main.querySelectorAll("details > summary")) if (open.has(s.textContent ?? "")) s.parentElement?.setAttribute("open", "")
  const lag = document.querySelector("[data-lag]")
  const nextLag = fresh.querySelector("[data-lag]")
  if (lag !== null && nextLag !== null) lag.replaceChildren(...nextLag.childNodes)
  if (fresh.title !== "") document.title = fresh.title
  initSteps(main)
  applyMarks(main)
}

/** Re-fetches at most one page at a time and at most once a second: a running run logs many events a second. */
const startLive = (url: string): void => {
  let busy = false
  let again = false
  const refresh = async (): Promise<void> => {
    if (busy) {
      again = true
      return
    }
    busy = true
    try {
      const res = await fetch(location.href, { credentials: "same-origin", headers: { accept: "text/html" } })
      if (!res.ok) return setStatus(`live — update failed (HTTP ${res.status})`)
      swapIn(new DOMParser().parseFromString(await res.text(), "text/html"))
      setStatus(`live — updated ${new Date().toLocaleTimeString()}`)
    } catch {
      setStatus("live — update failed (the console is unreachable)")
    } finally {
      setTimeout(() => {
        busy = false
        if (again) {
          again = false
          void refresh()
        }
      }, 1000)
    }
  }
  const source = new EventSource(url)
  setStatus("live — connecting")
  source.addEventListener("open", () => setStatus("live — following the log"))
  source.addEventListener("log", () => void refresh())
  // EventSource reconnects by itself; say so rather than pretend the page is current.
  source.addEventListener("error", () => setStatus("live — disconnected, reconnecting"))
}

const start = (): void => {
  initSteps(document)
  applyMarks(document)
  document.addEventListener("keydown", onKey)
  document.addEventListener("click", onClick)
  window.addEventListener("hashchange", onHash)
  const live = document.body.dataset.live
  if (live !== undefined && live !== "") startLive(live)
}

start()
