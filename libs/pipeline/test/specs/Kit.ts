/** What the pipeline's decider specs run with: the LF sandbox, the events' seed, the blobs their builders made. */
import type { SpecKit } from "@core/engine/testing"
import { labelSandbox } from "../../LabelSandbox.ts"
import { pendingBlobs, SEED } from "./Events.ts"

export const specKit: SpecKit = { sandbox: () => labelSandbox(), seed: SEED, pendingBlobs }
