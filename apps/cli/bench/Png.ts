/**
 * A small PNG encoder for made-up screenshots: benchmarks and tests need real, decodable
 * images of a known size without a browser. RGB, 8 bits a channel, every row with the Sub
 * filter (as browsers' encoders mostly choose for flat pages).
 *
 * @example
 * const bytes = encodePng(2, 1, new Uint8Array([255, 0, 0, 0, 0, 255])) // a red and a blue pixel
 */
import { deflateSync } from "node:zlib"

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

const chunk = (type: string, data: Uint8Array): Uint8Array => {
  const out = new Uint8Array(12 + data.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, data.length)
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i)
  out.set(data, 8)
  view.setUint32(8 + data.length, Bun.hash.crc32(out.subarray(4, 8 + data.length)) >>> 0)
  return out
}

/** `rgb` holds width × height × 3 bytes, row by row. */
export const encodePng = (width: number, height: number, rgb: Uint8Array): Uint8Array => {
  if (rgb.length !== width * height * 3) throw new RangeError(`${width}×${height} RGB needs ${width * height * 3} bytes, got ${rgb.length}`)
  const stride = 1 + 3 * width
  const raw = new Uint8Array(height * stride)
  for (let y = 0; y < height; y++) {
    raw[y * stride] = 1
    const row = y * width * 3
    for (let x = 0; x < 3 * width; x++) raw[y * stride + 1 + x] = (rgb[row + x]! - (x >= 3 ? rgb[row + x - 3]! : 0)) & 255
  }
  const ihdr = new Uint8Array(13)
  const v = new DataView(ihdr.buffer)
  v.setUint32(0, width)
  v.setUint32(4, height)
  ihdr.set([8, 2, 0, 0, 0], 8)
  return Buffer.concat([
    new Uint8Array(SIGNATURE),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 6 })),
    chunk("IEND", new Uint8Array())
  ])
}

/** Does `bytes` start with the PNG signature? */
export const isPng = (bytes: Uint8Array): boolean => SIGNATURE.every((b, i) => bytes[i] === b)
