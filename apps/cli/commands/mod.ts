/** Every `bun core` command, in the order `bun core help` lists them. */
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { appCheck } from "./app.ts"
import { configShow } from "./config.ts"
import { demo } from "./demo.ts"
import { doctor } from "./doctor.ts"
import { benchEnv, benchReplay, benchRun, benchSandbox, benchStore, benchTrain, benchUi } from "./bench.ts"
import { eventsTail } from "./events.ts"
import { datasetExport, datasetFollow } from "./dataset.ts"
import { datasetCheck } from "./datasetCheck.ts"
import { auditLabelFunction } from "./audit.ts"
import { auditTrajectory } from "./auditTrajectory.ts"
import { graphShow } from "./graph.ts"
import { infer } from "./infer.ts"
import { evalCorruptions, evalLabels } from "./eval.ts"
import { evalPolicy } from "./evalPolicy.ts"
import { ingest } from "./ingest.ts"
import { metrics } from "./metrics.ts"
import { record } from "./record.ts"
import { dbMigrate, dbProject, dbStatus } from "./db.ts"
import { replay } from "./replay.ts"
import { run } from "./run.ts"
import { sitesServe } from "./sites.ts"
import { solutionsRun } from "./solutions.ts"
import { tasks } from "./tasks.ts"
import { train } from "./train.ts"
import { ui } from "./ui.ts"
import { worker } from "./worker.ts"
import { workers } from "./workers.ts"

// Command<Failure>: a command whose failure has no line in the table (Failures.ts) is refused here.
export const commands: ReadonlyArray<Command<Failure>> = [
  demo,
  doctor,
  configShow,
  eventsTail,
  benchStore,
  benchReplay,
  benchEnv,
  benchSandbox,
  benchUi,
  benchRun,
  benchTrain,
  dbMigrate,
  dbStatus,
  dbProject,
  replay,
  sitesServe,
  appCheck,
  ...tasks,
  ingest,
  infer,
  run,
  worker,
  workers,
  metrics,
  auditLabelFunction,
  auditTrajectory,
  graphShow,
  ui,
  datasetExport,
  datasetFollow,
  datasetCheck,
  train,
  evalLabels,
  evalCorruptions,
  evalPolicy,
  record,
  solutionsRun
]
