export {
  BlobCorrupt,
  BlobHash,
  BlobNotFound,
  BlobStore,
  BlobStoreError,
  isBlobHash
} from "./BlobStore.ts"
export * as DirectoryBlobStore from "./DirectoryBlobStore.ts"
export type { DirectoryBlobStoreOptions } from "./DirectoryBlobStore.ts"
export * as JetStreamBlobStore from "./JetStreamBlobStore.ts"
export type { JetStreamBlobStoreOptions } from "./JetStreamBlobStore.ts"
export { promoting, staged } from "./Staged.ts"
