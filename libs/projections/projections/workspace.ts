/** Workspace facts: tasks (registered or extrapolated), demos (ingested or rejected) and label functions. */
import { defineProjection, json, runOf } from "../Projection.ts"
import { upsert } from "../RowOp.ts"

export const tasks = defineProjection("tasks", ["tasks"], (recorded) => {
  const e = recorded.event
  switch (e.type) {
    case "TaskRegistered":
      return [
        upsert(
          "tasks",
          { task_id: e.data.taskId },
          {
            origin: "registered",
            site: e.data.site,
            suite: e.data.suite,
            template_id: e.data.template?.id ?? null,
            template: e.data.template === null ? null : json(e.data.template),
            instruction: e.data.instruction,
            site_seed: e.data.siteSeed,
            checker: e.data.checker,
            platform: e.data.platform,
            start_url: e.data.startUrl,
            app: e.data.app,
            registered_at: e.recordedAt
          }
        )
      ]
    case "TaskExtrapolated":
      // Site, platform and start state are the parent's (Task.ts): an audit joins on parent_task_id rather than copying them.
      return [
        upsert(
          "tasks",
          { task_id: e.data.newTaskId },
          {
            origin: "extrapolated",
            run_id: runOf(recorded),
            instruction: e.data.instruction,
            parent_task_id: e.data.lineage.parentTaskId,
            generator: e.data.generator,
            generator_version: e.data.lineage.generatorVersion,
            prompt_digest: e.data.lineage.promptDigest,
            pseudo_demo_trajectory_id: e.data.pseudoDemoTrajectoryId,
            registered_at: e.recordedAt
          }
        )
      ]
    default:
      return []
  }
})

/** A rejected demo too broken to name itself is keyed by its stream's id. */
const streamId = (stream: string): string => stream.slice(stream.lastIndexOf(".") + 1)

export const demos = defineProjection("demos", ["demos"], (recorded) => {
  const e = recorded.event
  switch (e.type) {
    case "DemoIngested":
      return [
        upsert(
          "demos",
          { demo_id: e.data.demoId },
          {
            status: "ingested",
            task_id: e.data.taskId,
            source_kind: e.data.source.kind,
            source_ref: e.data.source.ref,
            step_count: e.data.steps.length,
            content_digest: e.data.contentDigest,
            reason: null,
            line: null,
            step_index: null,
            recorded_at: e.recordedAt
          }
        )
      ]
    case "DemoRejected":
      return [
        upsert(
          "demos",
          { demo_id: e.data.demoId ?? streamId(e.stream) },
          {
            status: "rejected",
            source_kind: e.data.source.kind,
            source_ref: e.data.source.ref,
            reason: e.data.reason,
            line: e.data.line,
            step_index: e.data.stepIndex,
            recorded_at: e.recordedAt
          }
        )
      ]
    default:
      return []
  }
})

export const labelFunctions = defineProjection("label_functions", ["label_functions"], (recorded) => {
  const e = recorded.event
  switch (e.type) {
    case "LabelFunctionInferred": {
      const key = {
        task_id: e.data.taskId,
        source_kind: e.data.source.kind,
        source_id: e.data.source.id,
        key_step_index: e.data.keyStepIndex
      }
      return [
        upsert("label_functions", key, {
          status: "inferred",
          lf_id: e.data.lfId,
          description: e.data.description,
          code: e.data.code,
          api_version: e.data.apiVersion,
          method: e.data.inference.method,
          attempts: e.data.inference.attempts,
          validation: json(e.data.validation),
          reason: null,
          recorded_at: e.recordedAt
        })
      ]
    }
    case "LabelFunctionRejected": {
      const key = {
        task_id: e.data.taskId,
        source_kind: e.data.source.kind,
        source_id: e.data.source.id,
        key_step_index: e.data.keyStepIndex
      }
      return [
        upsert("label_functions", key, {
          status: "rejected",
          lf_id: null,
          description: e.data.description,
          code: e.data.candidateCode,
          api_version: null,
          method: null,
          attempts: e.data.attempts,
          validation: null,
          reason: e.data.reason,
          recorded_at: e.recordedAt
        })
      ]
    }
    default:
      return []
  }
})
