import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { travel } from "../travel/mod.ts"
import { startEpisode, textOf, withServer } from "./client.ts"

describe("travel: deterministic content", () => {
  test("same seed → identical world; different seed → different world; sizes and formats", () => {
    const a = travel.base(1)
    expect(Bun.deepEquals(a, travel.base(1), true)).toBe(true)
    const b = travel.base(2)
    expect(a.flights.map((f) => f.id)).not.toEqual(b.flights.map((f) => f.id))
    expect(a.cities).toHaveLength(12)
    expect(a.flights).toHaveLength(200)
    expect(a.hotels).toHaveLength(40)
    expect(new Set(a.flights.map((f) => f.id)).size).toBe(200)
    expect(new Set(a.hotels.map((h) => h.id)).size).toBe(40)
    expect(a.dates.length).toBeGreaterThanOrEqual(28)
    for (const d of a.dates) expect(d.startsWith(`${a.year}-${String(a.month).padStart(2, "0")}-`)).toBe(true)
    for (const f of a.flights) {
      expect(f.from).not.toBe(f.to)
      expect(Number.isInteger(f.price) && f.price > 0).toBe(true)
      // Every route can be flown back, so return trips always have a return flight.
      expect(a.flights.some((x) => x.from === f.to && x.to === f.from)).toBe(true)
    }
    for (const c of a.cities) expect(a.hotels.filter((h) => h.city === c.id).length).toBeGreaterThanOrEqual(3)
    expect(a.traveller.passport).toMatch(/^[A-Z]{2}\d{7}$/)
  })

  const env = withServer()
  beforeAll(env.start)
  afterAll(env.stop)

  test("same seed → byte-identical pages in two episodes; different seed → different pages", async () => {
    const base = travel.base(11)
    const f = base.flights[7]!
    const h = base.hotels[3]!
    const paths = [
      "/travel/",
      `/travel/flights?from=${f.from}&to=${f.to}&date=${base.dates[3]}&sort=duration`,
      `/travel/flights/${f.id}`,
      `/travel/hotels?city=${h.city}`,
      `/travel/hotels/${h.id}`,
      `/travel/cities/${h.city}`,
      "/travel/travellers"
    ]
    const one = await startEpisode(env.server(), "travel", 11)
    const two = await startEpisode(env.server(), "travel", 11)
    const other = await startEpisode(env.server(), "travel", 12)
    for (const p of paths) {
      const [x, y, z] = await Promise.all([one.browser.get(p), two.browser.get(p), other.browser.get(p)])
      expect(x.status).toBe(200)
      expect(x.text).toBe(y.text)
      expect(x.text).not.toBe(z.text)
    }
  })

  test("flight results filter by stops, price and airline, and sort", async () => {
    const base = travel.base(4)
    const { browser } = await startEpisode(env.server(), "travel", 4)
    const f0 = base.flights[0]!
    const route = base.flights.filter((f) => f.from === f0.from && f.to === f0.to)
    const ids = (text: string) => [...text.matchAll(/aria-label="Select flight ([A-Z0-9]+)"/g)].map((m) => m[1])
    const q = `from=${f0.from}&to=${f0.to}&date=${base.dates[0]}`
    const byDuration = await browser.get(`/travel/flights?${q}&sort=duration`)
    expect(ids(byDuration.text)).toEqual([...route].sort((a, b) => a.duration - b.duration || a.id.localeCompare(b.id)).map((f) => f.id))
    const byDeparture = await browser.get(`/travel/flights?${q}&sort=departure`)
    expect(ids(byDeparture.text)).toEqual([...route].sort((a, b) => a.depart - b.depart || a.id.localeCompare(b.id)).map((f) => f.id))
    const max = Math.round(route[0]!.price / 100)
    const filtered = await browser.get(`/travel/flights?${q}&stops=0&maxPrice=${max}&airline=${route[0]!.airline}`)
    expect(ids(filtered.text)).toEqual(
      route
        .filter((f) => f.stops === 0 && f.price <= max * 100 && f.airline === route[0]!.airline)
        .sort((a, b) => a.price - b.price || a.id.localeCompare(b.id))
        .map((f) => f.id)
    )
    const bad = await browser.get(`/travel/flights?from=&to=${f0.to}&date=${base.dates[0]}&trip=return`)
    expect(bad.status).toBe(422)
    expect(bad.text).toContain('id="from-error"')
    expect(bad.text).toContain('id="return-error"')
    expect(bad.text).toContain('role="alert"')
  })

  test("hotel search filters by stars and guests and sorts; unknown things are 404 pages", async () => {
    const base = travel.base(4)
    const { browser } = await startEpisode(env.server(), "travel", 4)
    const city = base.cities[2]!.id
    const page = await browser.get(`/travel/hotels?city=${city}&guests=3&stars=3&sort=score`)
    const names = [...page.text.matchAll(/<h3><a href="\/travel\/hotels\/([^"?]+)\?/g)].map((m) => m[1])
    const expected = base.hotels
      .filter((h) => h.city === city && h.stars >= 3 && h.rooms.some((r) => r.capacity >= 3))
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
    expect(names).toEqual(expected.map((h) => h.id))
    for (const p of [
      "/travel/flights/XX1",
      "/travel/hotels/nope",
      "/travel/cities/nope",
      "/travel/trips/B-1",
      "/travel/travellers/T-9",
      "/travel/booking/9",
      "/travel/nowhere"
    ]) {
      const r = await browser.get(p)
      expect(r.status).toBe(404)
      expect(textOf(r)).toContain("Page not found")
    }
  })
})
