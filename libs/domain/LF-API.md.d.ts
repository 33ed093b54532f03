/** Imported as text (`with { type: "text" }`): the LF API guide, which the model prompt includes. */
declare const docs: string
export default docs
