/**
 * The contamination guard: given held-out tasks, when a generated task is a paraphrase of
 * one or the same template with the same parameters, then it is caught, and by which rule;
 * a task about something else is not.
 */
import { describe, expect, test } from "bun:test"
import { contaminationOf, instructionJaccard, WORDING_THRESHOLD } from "../mod.ts"
import type { HeldOutTask } from "../mod.ts"

const heldOut: ReadonlyArray<HeldOutTask> = [
  {
    id: "shop-open-product-3",
    instruction: "Open the product page of Juniper Essential Smart Plug.",
    templateId: "shop-open-product",
    parameters: { product: "Juniper Essential Smart Plug" }
  },
  {
    id: "shop-buy-3",
    instruction: "Buy 2 of Harbor Tent with express shipping.",
    templateId: "shop-buy",
    parameters: { product: "Harbor Tent", quantity: 2 }
  }
]

describe("contaminationOf", () => {
  test("given a paraphrase of a held-out task (words moved, one dropped), then it is caught by its wording", () => {
    const c = contaminationOf({ instruction: "Open the Juniper Essential Smart Plug product page" }, heldOut)
    expect(c).toEqual({ heldOutId: "shop-open-product-3", rule: "wording", similarity: 8 / 9 })
  })

  test("given the same template and parameters written differently, then it is caught even when the wording differs", () => {
    const c = contaminationOf(
      {
        instruction: "Purchase two Harbor Tents, express.",
        templateId: "shop-buy",
        parameters: { quantity: " 2", product: "harbor  tent" }
      },
      heldOut
    )
    expect(c?.heldOutId).toBe("shop-buy-3")
    expect(c?.rule).toBe("template-parameters")
    expect(c!.similarity).toBeLessThan(WORDING_THRESHOLD)
  })

  test("given the same template about another product, or a different task, then it is clean", () => {
    expect(
      contaminationOf(
        {
          instruction: "Open the product page of Kestrel Pro Biography.",
          templateId: "shop-open-product",
          parameters: { product: "Kestrel Pro Biography" }
        },
        heldOut
      )
    ).toBeNull()
    expect(contaminationOf({ instruction: "Add Juniper Essential Smart Plug to my wish list." }, heldOut)).toBeNull()
    expect(contaminationOf({ instruction: "Open the product page of Juniper Essential Smart Plug." }, [])).toBeNull()
  })
})

describe("instructionJaccard", () => {
  test("counts shared lower-cased word tokens over all tokens, punctuation ignored", () => {
    expect(instructionJaccard("Open the Books page.", "open THE books page")).toBe(1)
    expect(instructionJaccard("a b c d", "a b x y")).toBe(2 / 6)
    expect(instructionJaccard("", "")).toBe(1)
  })
})
