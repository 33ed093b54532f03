/** Imported as text (`with { type: "text" }`): version 1 of the LF API guide, which runs recorded before guide versions showed a model. */
declare const docs: string
export default docs
