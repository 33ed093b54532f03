/** Every read-model projection, in the order the projector applies a batch's operations. */
import type { Projection } from "../Projection.ts"
import { datasets } from "./datasets.ts"
import { graph } from "./graph.ts"
import { lineage } from "./lineage.ts"
import { runs } from "./runs.ts"
import { trajectories } from "./trajectories.ts"
import { demos, labelFunctions, tasks } from "./workspace.ts"

export { datasets, demos, graph, labelFunctions, lineage, runs, tasks, trajectories }
export { END, START } from "./graph.ts"

export const projections: ReadonlyArray<Projection> = [runs, tasks, demos, labelFunctions, graph, trajectories, datasets, lineage]
