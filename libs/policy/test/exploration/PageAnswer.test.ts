/**
 * Answers read off a page (exploration policy version 3), table-driven over accessibility
 * snapshots cut from the bundled sites' own pages: given a question and a page, then the
 * value a reader of that page would give — or null, where the page does not show it.
 */
import { describe, expect, test } from "bun:test"
import { answerFromPage, askedKindOf, atomsOf } from "../../mod.ts"

const shopResults = `- main:
  - heading "Results for “Trekking Poles”" [level=1]
  - form "Search filters":
    - paragraph:
      - text: Keywords
      - searchbox "Keywords": Willow Mini Trekking Poles
    - button "Apply filters"
  - paragraph: 2 results
  - list "Search results":
    - listitem:
      - heading "Harbor Modern Trekking Poles" [level=3]:
        - link "Harbor Modern Trekking Poles":
          - /url: /shop/product/12
      - paragraph: $64.00
      - paragraph: Rated 4.1 out of 5 (3 reviews)
    - listitem:
      - heading "Willow Mini Trekking Poles" [level=3]:
        - link "Willow Mini Trekking Poles":
          - /url: /shop/product/31
      - paragraph: $117.49
      - paragraph: Rated 1.2 out of 5 (5 reviews)`

const flightResults = `- main:
  - list "Flights":
    - listitem:
      - 'heading "MR707: Athens to Barcelona" [level=3]'
      - paragraph: Meridian Air · departs 11:25, arrives 14:35 · 3 h 10 min · 1 stop
      - paragraph:
        - link "Details of flight MR707":
          - text: Flight details
      - button "Select flight MR707": Select
    - listitem:
      - 'heading "PL658: Athens to Barcelona" [level=3]'
      - paragraph: Pelican Airways · departs 16:00, arrives 18:20 · 2 h 20 min · 1 stop
      - button "Select flight PL658": Select`

const flightPage = `- main:
  - navigation "Breadcrumb":
    - list:
      - listitem:
        - link "Flight PL658":
  - article "Flight PL658 Athens to Barcelona":
    - heading "Flight PL658 Athens to Barcelona" [level=1]
    - term: Airline
    - definition: Pelican Airways
    - term: Arrives
    - definition: 18:20 in Barcelona
    - term: Departs
    - definition: 16:00 from Athens`

const forumResults = `- main:
  - list "Search results":
    - listitem:
      - 'article "Show and tell: my regular expressions setup"':
        - 'heading "Show and tell: my regular expressions setup" [level=3]':
          - 'link "Show and tell: my regular expressions setup"':
        - paragraph:
          - text: in
          - link "Programming":
          - text: by
          - link "rustyfalcon16":
          - text: ","
          - time: 2024-04-21 17:00 UTC
          - text: ·
          - link "5 comments":
        - text: "Score: 50"
    - listitem:
      - article "Tips for getting started with regular expressions?":
        - paragraph:
          - text: by
          - link "wittymoose14":
          - link "7 comments":`

describe("answerFromPage", () => {
  const cases: ReadonlyArray<[question: string, page: string, expected: string | null]> = [
    ["What is the price of Willow Mini Trekking Poles?", shopResults, "$117.49"],
    ["What is the price of Harbor Modern Trekking Poles?", shopResults, "$64.00"],
    // The search box shows the name too, but what was typed is not the product.
    ["What is the price of Acme Everyday French Press?", shopResults, null],
    ["What time does flight MR707 depart?", flightResults, "11:25"],
    ["What time does flight PL658 depart?", flightResults, "16:00"],
    // A definition list: the label is the atom before the time, and arrival comes first.
    ["What time does flight PL658 depart?", flightPage, "16:00"],
    ["When does flight PL658 arrive?", flightPage, "18:20"],
    ["When does flight MR707 arrive?", flightResults, "14:35"],
    ['How many comments (replies included) does the post "Show and tell: my regular expressions setup" have?', forumResults, "5"],
    ['How many comments (replies included) does the post "Tips for getting started with regular expressions?" have?', forumResults, "7"],
    ['Who wrote the post "Show and tell: my regular expressions setup"? Answer with the username.', forumResults, "rustyfalcon16"],
    // Not one of the kinds read: a name or a place is left to version 2's answer.
    ["Which board is the post 'Show and tell: my regular expressions setup' in?", forumResults, null],
    // Nothing the question names is on the page.
    ["What time does flight ZZ999 depart?", flightResults, null]
  ]
  for (const [question, page, expected] of cases) {
    test(`${question} → ${expected}`, () => {
      expect(answerFromPage(question, page)).toBe(expected)
    })
  }

  describe("a person is a name, not a function word (version 6: namesOnly)", () => {
    const station = `- heading "Kestrel Station" [level=2]
- paragraph: Supplies arrive by the boat Petrel. The generator is looked after by Tomas Reyes.`
    const boatOnly = `- heading "Kestrel Station" [level=2]
- paragraph: Supplies arrive by the boat Petrel.`
    const cases: ReadonlyArray<[page: string, before: string | null, after: string | null]> = [
      // Version 3 took the first "by"; version 6 reads on to the name.
      [station, "the", "Tomas"],
      [boatOnly, "the", null],
      [forumResults, "rustyfalcon16", "rustyfalcon16"]
    ]
    for (const [page, before, after] of cases) {
      test(`${JSON.stringify(page.split("\n").at(-1))}: ${before} before, ${after} with namesOnly`, () => {
        const question =
          page === forumResults
            ? 'Who wrote the post "Show and tell: my regular expressions setup"?'
            : 'Who looks after the generator of "Kestrel Station"?'
        expect([answerFromPage(question, page), answerFromPage(question, page, { namesOnly: true })]).toEqual([before, after])
      })
    }
  })

  test("no snapshot, no answer", () => {
    expect(answerFromPage("What is the price of Willow Mini Trekking Poles?", null)).toBeNull()
  })
})

describe("askedKindOf", () => {
  const cases: ReadonlyArray<[string, ReturnType<typeof askedKindOf>]> = [
    ["What is the price of X?", "price"],
    ["How much does X cost?", "price"],
    ["What time does flight MR707 depart?", "time"],
    ["When does flight MR707 leave?", "time"],
    ["How many customer reviews does X have?", "count"],
    ["Who wrote the post 'X'?", "person"],
    ["Open the Kitchen category page.", null]
  ]
  for (const [question, kind] of cases) test(`${question} asks for ${kind}`, () => expect(askedKindOf(question)).toBe(kind))
})

describe("atomsOf", () => {
  test("lines YAML quoted for a colon in the name are read only when asked", () => {
    const line = `- 'heading "MR707: Athens to Barcelona" [level=3]'`
    expect(atomsOf(line)).toEqual([])
    expect(atomsOf(line, { quoted: true })).toEqual([{ role: "heading", text: "MR707: Athens to Barcelona" }])
  })
  test("a field's typed text is marked as such, so it never anchors", () => {
    expect(atomsOf('- searchbox "Keywords": Willow')).toEqual([
      { role: "searchbox", text: "Keywords" },
      { role: "value", text: "Willow" }
    ])
  })
})
