/** A runtime for driving and replaying test deciders: a real embedded store, blob store and sandbox, no model, no browser. */
import { Layer, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DirectoryBlobStore } from "@core/blobstore"
import { EmbeddedStore } from "@core/eventstore"
import { Sandbox } from "@core/sandbox"
import { noModels, noObservations, Randomness } from "../mod.ts"

export const deciderRuntime = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const rt = ManagedRuntime.make(
    Layer.mergeAll(
      EmbeddedStore.layer({ path: join(dir, "events.db") }),
      DirectoryBlobStore.layer({ dir: join(dir, "blobs") }),
      Sandbox.layer(),
      noModels,
      noObservations,
      Randomness.layer("0123456789abcdef0123456789abcdef")
    )
  )
  const dispose = async () => {
    await rt.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
  return { rt, dispose }
}
