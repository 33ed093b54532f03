/**
 * Why a dataset could not be exported, followed or checked, in one line: the `core` command
 * prints the message as it is, and a trainer importing these modules gets the same text.
 */
import { Schema } from "effect"

export class DatasetError extends Schema.TaggedError<DatasetError>()("DatasetError", {
  message: Schema.String
}) {}
