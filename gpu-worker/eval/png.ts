import { deflateSync } from "node:zlib";

/** A tiny RGB raster with just what a reliability plot needs; encoded as PNG with node:zlib. */
export class Raster {
  readonly px: Uint8Array;
  constructor(
    readonly w: number,
    readonly h: number,
    bg: [number, number, number] = [255, 255, 255],
  ) {
    this.px = new Uint8Array(w * h * 3);
    for (let i = 0; i < w * h; i++) this.px.set(bg, i * 3);
  }
  set(x: number, y: number, c: [number, number, number]): void {
    const [xi, yi] = [Math.round(x), Math.round(y)];
    if (xi < 0 || yi < 0 || xi >= this.w || yi >= this.h) return;
    this.px.set(c, (yi * this.w + xi) * 3);
  }
  rect(x0: number, y0: number, x1: number, y1: number, c: [number, number, number]): void {
    for (let y = Math.round(Math.min(y0, y1)); y <= Math.round(Math.max(y0, y1)); y++)
      for (let x = Math.round(Math.min(x0, x1)); x <= Math.round(Math.max(x0, x1)); x++) this.set(x, y, c);
  }
  line(x0: number, y0: number, x1: number, y1: number, c: [number, number, number], width = 1): void {
    const n = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0)));
    const r = (width - 1) / 2;
    for (let i = 0; i <= n; i++) {
      const x = x0 + ((x1 - x0) * i) / n;
      const y = y0 + ((y1 - y0) * i) / n;
      this.rect(x - r, y - r, x + r, y + r, c);
    }
  }
  png(): Buffer {
    const raw = Buffer.alloc((this.w * 3 + 1) * this.h);
    for (let y = 0; y < this.h; y++) {
      raw[y * (this.w * 3 + 1)] = 0; // filter: none
      raw.set(this.px.subarray(y * this.w * 3, (y + 1) * this.w * 3), y * (this.w * 3 + 1) + 1);
    }
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(this.w, 0);
    ihdr.writeUInt32BE(this.h, 4);
    ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit, truecolour, deflate, no filter, no interlace
    return Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk("IHDR", ihdr),
      chunk("IDAT", deflateSync(raw, { level: 9 })),
      chunk("IEND", Buffer.alloc(0)),
    ]);
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 as PNG chunks need it (ISO 3309). */
export function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of buf) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** Per-bin (mean confidence, accuracy, count) for a reliability plot. */
export interface BinPoint {
  conf: number;
  acc: number;
  n: number;
}

export function reliabilityBins(conf: number[], correct: boolean[], bins = 15): BinPoint[] {
  const acc = Array.from({ length: bins }, () => ({ c: 0, a: 0, n: 0 }));
  conf.forEach((c, i) => {
    const b = acc[Math.min(bins - 1, Math.floor(c * bins))] as { c: number; a: number; n: number };
    b.c += c;
    b.a += correct[i] ? 1 : 0;
    b.n++;
  });
  return acc.filter((b) => b.n).map((b) => ({ conf: b.c / b.n, acc: b.a / b.n, n: b.n }));
}

/**
 * Panels side by side, one per series set: axes, the diagonal, and per bin a square (area ∝ count) at
 * (mean confidence, accuracy) — red before calibration, blue after.
 */
export function reliabilityPng(panels: { before: BinPoint[]; after: BinPoint[] }[]): Buffer {
  const size = 300;
  const pad = 30;
  const r = new Raster(panels.length * (size + pad) + pad, size + 2 * pad);
  panels.forEach((p, k) => {
    const ox = pad + k * (size + pad);
    const oy = pad + size;
    const X = (v: number) => ox + v * size;
    const Y = (v: number) => oy - v * size;
    for (let g = 0; g <= 10; g++) {
      r.line(X(g / 10), Y(0), X(g / 10), Y(1), [235, 235, 235]);
      r.line(X(0), Y(g / 10), X(1), Y(g / 10), [235, 235, 235]);
    }
    r.line(X(0), Y(0), X(1), Y(1), [150, 150, 150], 2);
    r.line(X(0), Y(0), X(1), Y(0), [0, 0, 0], 2);
    r.line(X(0), Y(0), X(0), Y(1), [0, 0, 0], 2);
    const total = Math.max(1, ...[...p.before, ...p.after].map((b) => b.n));
    const dot = (b: BinPoint, c: [number, number, number]) => {
      const half = 2 + 8 * Math.sqrt(b.n / total);
      r.rect(X(b.conf) - half, Y(b.acc) - half, X(b.conf) + half, Y(b.acc) + half, c);
    };
    for (const b of p.before) dot(b, [220, 50, 40]);
    for (const b of p.after) dot(b, [40, 90, 220]);
  });
  return r.png();
}
