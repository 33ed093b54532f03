/**
 * The contamination guard: given held-out tasks, when a generated task is a paraphrase of
 * one or the same template with the same parameters, then it is caught, and by which rule;
 * a task about something else is not. And where records are chosen for training, a record
 * of a held-out task, or of a generated task the guard refuses, is left out.
 */
import { describe, expect, test } from "bun:test"
import { contaminationOf, instructionJaccard, recordInstruction, trainingRecords, WORDING_THRESHOLD } from "../mod.ts"
import type { HeldOutTask, TaskLike } from "../mod.ts"

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

describe("trainingRecords", () => {
  const sft = (taskId: string, instruction: string) => ({ taskId, body: { meta: { instruction, task_id: taskId, step: 0 } } })
  const generated = new Map<string, TaskLike>([
    ["x-paraphrase", { instruction: "Open the Juniper Essential Smart Plug product page" }],
    [
      "x-same-values",
      { instruction: "Purchase two Harbor Tents.", templateId: "shop-buy", parameters: { product: "Harbor Tent", quantity: 2 } }
    ],
    ["x-other", { instruction: "Add Juniper Essential Smart Plug to my wish list." }]
  ])

  test("given records of a held-out task, of generated tasks the guard refuses and of clean ones, then only the clean ones are kept, in order", () => {
    const records = [
      sft("shop-open-product-1", "Open the product page of Kestrel Pro Biography."),
      sft("shop-buy-3", "Buy 2 of Harbor Tent with express shipping."),
      sft("x-paraphrase", "Open the Juniper Essential Smart Plug product page"),
      sft("x-other", "Add Juniper Essential Smart Plug to my wish list."),
      sft("x-same-values", "Purchase two Harbor Tents."),
      { taskId: "shop-open-product-1", body: { instruction: "Open the product page of Kestrel Pro Biography.", steps: [] } }
    ]
    const { kept, excluded } = trainingRecords(records, heldOut, (id) => generated.get(id))
    expect(kept).toEqual([records[0]!, records[3]!, records[5]!])
    expect(excluded.map((x) => [x.record.taskId, x.why.heldOutId, x.why.rule])).toEqual([
      ["shop-buy-3", "shop-buy-3", "held-out-task"],
      ["x-paraphrase", "shop-open-product-3", "wording"],
      ["x-same-values", "shop-buy-3", "template-parameters"]
    ])
  })

  test("given a run's own task that reads like its held-out sibling, then it is kept: the train split is not a generated task", () => {
    const sibling: HeldOutTask = {
      id: "shop-cheapest-in-category-3",
      instruction: "Find the cheapest product in the Garden category and add it to my cart.",
      templateId: "shop-cheapest-in-category",
      parameters: { category: "Garden" }
    }
    const own = sft("shop-cheapest-in-category-1", "Find the cheapest product in the Clothing category and add it to my cart.")
    expect(trainingRecords([own], [sibling], () => undefined).kept).toEqual([own])
    // the same words from a generated task are refused
    expect(trainingRecords([own], [sibling], () => ({ instruction: "" })).excluded[0]?.why).toMatchObject({
      heldOutId: "shop-cheapest-in-category-3",
      rule: "wording"
    })
  })

  test("the instruction is read from sft and dpo records' meta and from rollout records", () => {
    expect(recordInstruction({ meta: { instruction: "a" } })).toBe("a")
    expect(recordInstruction({ instruction: "b", steps: [] })).toBe("b")
    expect(recordInstruction({ messages: [] })).toBeNull()
    expect(recordInstruction(null)).toBeNull()
  })
})
