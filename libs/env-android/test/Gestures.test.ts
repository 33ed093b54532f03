import { describe, expect, test } from "bun:test"
import { contentArea, scrollSwipe, swipeActions, tapActions, tapPoint, visiblePart } from "../Gestures.ts"

const screen = { width: 1080, height: 2088 }

describe("tapPoint", () => {
  test("given a box, when tapped, then the point is its centre in whole pixels", () => {
    expect(tapPoint({ x: 72, y: 1016, width: 936, height: 132 })).toEqual({ x: 540, y: 1082 })
    expect(tapPoint({ x: 0, y: 0, width: 3, height: 3 })).toEqual({ x: 1, y: 1 })
  })

  test("given a box partly below the screen, when tapped with the viewport, then the point is the centre of the visible part", () => {
    // Settings' "Location" row is cut by the screen's bottom edge at 2088.
    expect(tapPoint({ x: 0, y: 1997, width: 1080, height: 200 }, screen)).toEqual({ x: 540, y: 2042 })
  })

  test("given a box entirely off screen, when tapped with the viewport, then there is no point", () => {
    expect(tapPoint({ x: 0, y: 2100, width: 100, height: 100 }, screen)).toBeNull()
    expect(visiblePart({ x: -200, y: 0, width: 100, height: 100 }, screen)).toBeNull()
  })
})

describe("scrollSwipe", () => {
  const list = { x: 0, y: 66, width: 1080, height: 2022 }

  test("given down, when swiped, then the finger moves up through the middle of the area", () => {
    const { from, to } = scrollSwipe("down", list)
    expect(from.x).toBe(540)
    expect(to.x).toBe(540)
    expect(from.y).toBeGreaterThan(to.y)
    // 60% of the height, give or take the rounding of each end.
    expect(Math.abs(from.y - to.y - 2022 * 0.6)).toBeLessThanOrEqual(1)
  })

  test("given each direction, when swiped, then the finger moves against the content direction", () => {
    const up = scrollSwipe("up", list)
    expect(up.to.y).toBeGreaterThan(up.from.y)
    const right = scrollSwipe("right", list)
    expect(right.from.x).toBeGreaterThan(right.to.x)
    const left = scrollSwipe("left", list)
    expect(left.to.x).toBeGreaterThan(left.from.x)
    expect(left.from.y).toBe(right.from.y)
  })

  test("given any direction, when swiped, then both points stay inside the area's middle 80%", () => {
    const area = { x: 100, y: 400, width: 500, height: 300 }
    for (const d of ["up", "down", "left", "right"] as const) {
      const { from, to } = scrollSwipe(d, area)
      for (const p of [from, to]) {
        expect(p.x).toBeGreaterThanOrEqual(150)
        expect(p.x).toBeLessThanOrEqual(550)
        expect(p.y).toBeGreaterThanOrEqual(430)
        expect(p.y).toBeLessThanOrEqual(670)
      }
    }
  })

  test("given an area running off the screen, when swiped with the viewport, then the swipe stays on screen", () => {
    const { from, to } = scrollSwipe("down", { x: 0, y: 1000, width: 1080, height: 3000 }, screen)
    expect(Math.max(from.y, to.y)).toBeLessThan(2088)
    expect(Math.min(from.y, to.y)).toBeGreaterThanOrEqual(1000)
  })

  test("given no target, when the content area is taken, then the status and navigation bar strips are left out", () => {
    expect(contentArea(screen)).toEqual({ x: 0, y: 209, width: 1080, height: 1670 })
  })
})

describe("W3C pointer actions", () => {
  test("given a point and a hold, when a tap is built, then it is one touch pointer: move, down, pause, up", () => {
    const tap = tapActions({ x: 540, y: 1082 }, 800)
    expect(tap.parameters.pointerType).toBe("touch")
    expect(tap.actions.map((a) => a.type)).toEqual(["pointerMove", "pointerDown", "pause", "pointerUp"])
    expect(tap.actions[0]).toMatchObject({ x: 540, y: 1082, origin: "viewport" })
    expect(tap.actions[2]).toEqual({ type: "pause", duration: 800 })
    expect(tapActions({ x: 1, y: 1 }).actions[2]).toEqual({ type: "pause", duration: 50 })
  })

  test("given two points, when a swipe is built, then the finger drags between them and rests before lifting", () => {
    const swipe = swipeActions({ x: 540, y: 1600 }, { x: 540, y: 400 }, 500)
    expect(swipe.actions.map((a) => a.type)).toEqual(["pointerMove", "pointerDown", "pause", "pointerMove", "pause", "pointerUp"])
    expect(swipe.actions[3]).toMatchObject({ duration: 500, x: 540, y: 400 })
  })
})
