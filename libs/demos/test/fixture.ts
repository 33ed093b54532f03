/** A small valid demo (shop-wishlist-add-1, three steps) written into a folder, in format version 1 or 2, and ways to break it. */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"

export const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0
])
export const ELEMENTS = JSON.stringify([{ id: "e12", role: "button", name: "Add to wish list" }])
export const ARIA = '- button "Add to wish list"\n'

const target = (role: string, name: string, elementId: string) => ({ role, name, elementId, text: null })

export const validDemo = (): any => ({
  format: "core-demo",
  version: 1,
  demoId: "shop-wishlist-add-1-a",
  taskId: "shop-wishlist-add-1",
  platform: "web",
  recordedWith: "script",
  steps: [
    {
      action: { kind: "type", target: target("searchbox", "Search", "e3"), text: "Northwind Everyday T-Shirt", submit: true },
      urlBefore: "/shop/",
      urlAfter: "/shop/search?q=Northwind+Everyday+T-Shirt",
      observation: { screenshot: "s0.png", elements: "e0.json", aria: "a0.txt" }
    },
    {
      action: { kind: "click", target: target("button", "Add to wish list", "e12") },
      urlBefore: "/shop/search?q=Northwind+Everyday+T-Shirt",
      urlAfter: "/shop/wishlist",
      observation: { screenshot: "s1.png", elements: null, aria: null }
    },
    {
      action: { kind: "status", status: "complete" },
      urlBefore: "/shop/wishlist",
      urlAfter: "/shop/wishlist",
      observation: { screenshot: null, elements: null, aria: null }
    }
  ],
  blobs: { "s0.png": "shots/s0.png", "s1.png": "shots/s1.png", "e0.json": "e0.json", "a0.txt": "a0.txt" }
})

/** Writes `demo` (default: the valid one) and its blob files into `dir`; returns the demo.json path. */
export const writeDemo = (dir: string, demo: any = validDemo(), text?: string): string => {
  mkdirSync(join(dir, "shots"), { recursive: true })
  writeFileSync(join(dir, "shots", "s0.png"), PNG)
  writeFileSync(join(dir, "shots", "s1.png"), new Uint8Array([...PNG, 1]))
  writeFileSync(join(dir, "e0.json"), ELEMENTS)
  writeFileSync(join(dir, "a0.txt"), ARIA)
  const file = join(dir, "demo.json")
  writeFileSync(file, text ?? JSON.stringify(demo, null, 2))
  return file
}

/** The page before the first step, as the web environment's elements blob: what the version 2 demo's `initial` shows. */
export const INITIAL_ELEMENTS = JSON.stringify({
  url: "/shop/",
  elements: [
    {
      id: "e3",
      role: "searchbox",
      name: "Search",
      text: "",
      value: "",
      box: null,
      visible: true,
      inViewport: true,
      enabled: true,
      editable: true,
      checked: null
    }
  ]
})
export const INITIAL_PNG = new Uint8Array([...PNG, 0x49])

/** The valid demo in version 2: with `initial` (its own screenshot and element list) and the steps' app fields. */
export const validDemoV2 = (): any => {
  const d = validDemo()
  return {
    ...d,
    version: 2,
    initial: { screenshot: "i0.png", elements: "i0.json", aria: null },
    steps: d.steps.map((s: any) => ({ ...s, appBefore: null, appAfter: null })),
    blobs: { ...d.blobs, "i0.png": "shots/i0.png", "i0.json": "i0.json" }
  }
}

/** Writes a version 2 demo (default: the valid one) and its blob files, the initial ones too, into `dir`; returns the demo.json path. */
export const writeDemoV2 = (dir: string, demo: any = validDemoV2()): string => {
  const file = writeDemo(dir, demo)
  writeFileSync(join(dir, "shots", "i0.png"), INITIAL_PNG)
  writeFileSync(join(dir, "i0.json"), INITIAL_ELEMENTS)
  return file
}
