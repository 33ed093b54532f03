/**
 * Touch geometry on a device screen, pure: where a tap lands, where a scroll's finger
 * starts and ends, and the W3C pointer actions that perform them. Coordinates are device
 * pixels, as UiAutomator's bounds are.
 *
 * Scroll directions are the content's, as on the web: "down" reveals what is further down,
 * so the finger moves up. A swipe stays inside the middle 80% of its area (an edge swipe
 * would open the notification shade or a system back gesture) and travels 60% of it,
 * slowly enough, with a pause before lifting, that the list does not fling past the target.
 */
import type { Box } from "@core/environment"

export interface Point {
  readonly x: number
  readonly y: number
}

export interface Viewport {
  readonly width: number
  readonly height: number
}

export type Direction = "up" | "down" | "left" | "right"

const clamp = (v: number, lo: number, hi: number): number => Math.min(Math.max(v, lo), hi)

/** The part of `box` on the screen, or null when none of it is. */
export const visiblePart = (box: Box, viewport: Viewport): Box | null => {
  const x1 = Math.max(box.x, 0)
  const y1 = Math.max(box.y, 0)
  const x2 = Math.min(box.x + box.width, viewport.width)
  const y2 = Math.min(box.y + box.height, viewport.height)
  return x2 > x1 && y2 > y1 ? { x: x1, y: y1, width: x2 - x1, height: y2 - y1 } : null
}

/**
 * The centre of `box`, in whole pixels; with a viewport, the centre of the part on screen
 * (null when the element is entirely off screen, so nothing would be tapped).
 */
export function tapPoint(box: Box): Point
export function tapPoint(box: Box, viewport: Viewport): Point | null
export function tapPoint(box: Box, viewport?: Viewport): Point | null {
  const area = viewport === undefined ? box : visiblePart(box, viewport)
  if (area === null) return null
  return { x: Math.floor(area.x + area.width / 2), y: Math.floor(area.y + area.height / 2) }
}

/** Fraction of the area's extent the finger travels, and the margin kept from its edges. */
export const swipeTravel = 0.6
export const swipeMargin = 0.1

/**
 * Where a finger starts and ends to scroll the content of `area` in `direction`; with a
 * viewport, the area is first cut to the screen.
 */
export const scrollSwipe = (direction: Direction, area: Box, viewport?: Viewport): { readonly from: Point; readonly to: Point } => {
  const a = (viewport === undefined ? area : visiblePart(area, viewport)) ?? area
  const cx = Math.floor(a.x + a.width / 2)
  const cy = Math.floor(a.y + a.height / 2)
  const half = (extent: number) => (extent * swipeTravel) / 2
  // Kept inside the margins even for a tiny area.
  const inside = (v: number, start: number, extent: number) =>
    Math.round(clamp(v, start + extent * swipeMargin, start + extent * (1 - swipeMargin)))
  const vertical = (sign: number) => ({
    from: { x: cx, y: inside(cy + sign * half(a.height), a.y, a.height) },
    to: { x: cx, y: inside(cy - sign * half(a.height), a.y, a.height) }
  })
  const horizontal = (sign: number) => ({
    from: { x: inside(cx + sign * half(a.width), a.x, a.width), y: cy },
    to: { x: inside(cx - sign * half(a.width), a.x, a.width), y: cy }
  })
  switch (direction) {
    case "down":
      return vertical(1)
    case "up":
      return vertical(-1)
    case "right":
      return horizontal(1)
    case "left":
      return horizontal(-1)
  }
}

/** The screen without its top and bottom strips (status and navigation bars): what a scroll with no target swipes. */
export const contentArea = (viewport: Viewport): Box => {
  const top = Math.round(viewport.height * 0.1)
  return { x: 0, y: top, width: viewport.width, height: viewport.height - 2 * top }
}

/** One W3C touch pointer's actions (`performActions` input). */
export interface PointerActions {
  readonly type: "pointer"
  readonly id: string
  readonly parameters: { readonly pointerType: "touch" }
  readonly actions: ReadonlyArray<Record<string, unknown>>
}

const finger = (actions: ReadonlyArray<Record<string, unknown>>): PointerActions => ({
  type: "pointer",
  id: "finger1",
  parameters: { pointerType: "touch" },
  actions
})

/** A tap, or with `holdMs` a long press, at `point`. */
export const tapActions = (point: Point, holdMs = 0): PointerActions =>
  finger([
    { type: "pointerMove", duration: 0, origin: "viewport", x: point.x, y: point.y },
    { type: "pointerDown", button: 0 },
    { type: "pause", duration: Math.max(holdMs, 50) },
    { type: "pointerUp", button: 0 }
  ])

/** Press at `from`, drag to `to` over `durationMs`, hold still briefly so the list stops there, lift. */
export const swipeActions = (from: Point, to: Point, durationMs = 600): PointerActions =>
  finger([
    { type: "pointerMove", duration: 0, origin: "viewport", x: from.x, y: from.y },
    { type: "pointerDown", button: 0 },
    { type: "pause", duration: 100 },
    { type: "pointerMove", duration: durationMs, origin: "viewport", x: to.x, y: to.y },
    { type: "pause", duration: 200 },
    { type: "pointerUp", button: 0 }
  ])
