/** Imported as text (`with { type: "text" }`): the API script itself, for the sandbox prelude. */
declare const source: string
export default source
