/**
 * `/runs/:run/demos/:demo`: an expert demo as the run read it (the workspace facts logged
 * before the run ended), step by step like a trajectory, with its key steps and the label
 * functions inferred from them in this run.
 */
import { Effect } from "effect"
import type { CoreEvent } from "@core/events"
import { actionText } from "@core/pipeline"
import type { Html } from "../Html.ts"
import { html } from "../Html.ts"
import type { Page } from "../Page.ts"
import type { StepSpec } from "./steps.ts"
import { loadSteps, stepsHtml } from "./steps.ts"
import { datasetHref, lfHref, notFound, page, plural, short, taskHref } from "./shared.ts"

type Of<T extends CoreEvent["type"]> = Extract<CoreEvent, { type: T }>
type Ingested = Of<"DemoIngested">["data"]

type Labeling = Of<"KeyStepsIdentified" | "LabelFunctionInferred" | "LabelFunctionRejected">

const fromDemo =
  (demoId: string) =>
  (e: CoreEvent): e is Labeling =>
    (e.type === "KeyStepsIdentified" || e.type === "LabelFunctionInferred" || e.type === "LabelFunctionRejected") &&
    e.data.source.kind === "demo" &&
    e.data.source.id === demoId

/** Per step: the key step it is, and the label function inferred for it (or why none was). */
const keyStepNotes = (runId: string, events: ReadonlyArray<CoreEvent>, demoId: string): ReadonlyMap<number, Html> => {
  const mine = events.filter(fromDemo(demoId))
  const identified = mine.findLast((e): e is Of<"KeyStepsIdentified"> => e.type === "KeyStepsIdentified")
  const notes = new Map<number, Html>()
  for (const k of identified?.data.keySteps ?? []) {
    const lf = mine.findLast(
      (e): e is Of<"LabelFunctionInferred"> => e.type === "LabelFunctionInferred" && e.data.keyStepIndex === k.stepIndex
    )
    const rejected = mine.findLast(
      (e): e is Of<"LabelFunctionRejected"> => e.type === "LabelFunctionRejected" && e.data.keyStepIndex === k.stepIndex
    )
    const outcome =
      lf !== undefined
        ? html`→ label function <a href="${lfHref(runId, lf.data.lfId)}"><code>${short(lf.data.lfId)}</code></a>`
        : rejected !== undefined
          ? html`→ no label function: ${rejected.data.reason}`
          : html`→ no label function`
    notes.set(k.stepIndex, html`<p><strong>Key step</strong> (${k.reason}): ${k.description} ${outcome}</p>`)
  }
  return notes
}

const stepSpecs = (d: Ingested, notes: ReadonlyMap<number, Html>): ReadonlyArray<StepSpec> => {
  const specs: Array<StepSpec> = d.steps.map((s, i) => ({
    index: i,
    action: actionText(s.action),
    target: "target" in s.action ? s.action.target : null,
    screen: i === 0 ? (d.initial ?? null) : d.steps[i - 1]!.observation,
    urlBefore: s.urlBefore ?? s.appBefore,
    urlAfter: s.urlAfter ?? s.appAfter,
    error: null,
    notes: notes.get(i) ?? html``
  }))
  const last = d.steps.at(-1)
  if (last !== undefined)
    specs.push({
      index: d.steps.length,
      action: null,
      target: null,
      screen: last.observation,
      urlBefore: last.urlAfter ?? last.appAfter,
      urlAfter: null,
      error: null
    })
  return specs
}

export const demoPage: Page = (ctx, params) =>
  Effect.gen(function* () {
    const runId = params.run ?? ""
    const demoId = params.demo ?? ""
    const events = yield* ctx.runLog(runId)
    if (events.length === 0) return notFound(`no run ${runId} in the log`)
    const ingested = events.findLast((e): e is Of<"DemoIngested"> => e.type === "DemoIngested" && e.data.demoId === demoId)
    if (ingested === undefined) {
      const rejected = events.findLast((e): e is Of<"DemoRejected"> => e.type === "DemoRejected" && e.data.demoId === demoId)
      if (rejected === undefined) return notFound(`no demo ${demoId} in run ${runId}'s log`)
      const r = rejected.data
      return page(
        `Demo ${demoId}`,
        html`<h1>Demo ${demoId} <span class="badge fail">rejected</span></h1><p>${r.source.kind} <code>${r.source.ref}</code>${
          r.line === null ? "" : `, line ${r.line}`
        }${r.stepIndex === null ? "" : `, step ${r.stepIndex}`}: ${r.reason}</p>`
      )
    }
    const d = ingested.data
    const views = yield* loadSteps(stepSpecs(d, keyStepNotes(runId, events, demoId)))
    const body = html`<h1>Demo ${demoId}</h1>
<p>Task <a href="${taskHref(runId, d.taskId)}">${d.taskId}</a> · ${plural(d.steps.length, "step")} · ${d.platform ?? "web"} · ${d.source.kind} <code>${d.source.ref}</code></p>
<p class="muted">content digest <code>${short(d.contentDigest, 16)}</code> · <a href="${datasetHref(runId, { trajectory: `demo:${demoId}` })}">dataset records made from it</a></p>
<h2>Steps</h2>${stepsHtml(views)}`
    return page(`Demo ${demoId}`, body)
  })
