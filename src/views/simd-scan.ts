/**
 * The literal shortcut's inner loop in WebAssembly SIMD: 16 bytes at a time, the LFs counted and a
 * block holding a byte that may begin a control (scanRun's SUSPECT less the ones it finds harmless:
 * TAB, CR before LF, 0xC2 not before a C1 byte) found. JavaScript's loop does 4 bytes at a time with
 * three tests each and runs cold in every `derun grep` (about 0.5 GB/s of CPU time there); this
 * one is native code from its first call (several GB/s), so search reads at the disk's pace.
 *
 * The module is a few hundred bytes, assembled here (nothing to build or ship beside the bundle).
 * It works on bytes in its own memory, so the search reads its windows straight into it
 * ({@link scanBuffer}); a window elsewhere (a store without openOutput, a second search at once)
 * takes the JavaScript loop, which gives the same answer. Where WebAssembly or its SIMD is missing,
 * every window does.
 */

/** Bytes of the shared memory a window can take (the default window, 1 MiB) and the pad after it (loads read 17 bytes). */
const CAPACITY = 1 << 20;
const PAGE = 1 << 16;

const u32 = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const i32 = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
};
const name = (s: string): number[] => [...u32(s.length), ...new TextEncoder().encode(s)];
const section = (id: number, body: number[]): number[] => [id, ...u32(body.length), ...body];

// Opcodes (core and SIMD, 0xFD-prefixed).
const SIMD = (op: number): number[] => [0xfd, ...u32(op)];
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const GLOBAL_GET = 0x23;
const GLOBAL_SET = 0x24;
const splat = (byte: number): number[] => [0x41, ...i32(byte), ...SIMD(0x0f)];
const load = (offset: number): number[] => [LOCAL_GET, 0, ...SIMD(0x00), 0, ...u32(offset)];
const EQ = SIMD(0x23);
const LT_U = SIMD(0x26);
const AND = SIMD(0x4e);
const ANDNOT = SIMD(0x4f);
const OR = SIMD(0x50);
const ANY_TRUE = SIMD(0x53);
const BITMASK = SIMD(0x64);
const SUB = SIMD(0x71);

/**
 * scan(p, to): from p, the whole 16-byte blocks before `to` with no suspect byte, their LFs added
 * to the global `lfs`; returns where the first block not passed starts.
 */
const BODY = [
  ...[1, 3, 0x7b], // locals 2-4: v, n, lf (v128)
  ...[0x02, 0x40, 0x03, 0x40], // block $done, loop $next
  ...[LOCAL_GET, 0, 0x41, 16, 0x6a, LOCAL_GET, 1, 0x4b, 0x0d, 1], // p + 16 > to: done
  ...load(0),
  ...[LOCAL_SET, 2],
  ...load(1),
  ...[LOCAL_SET, 3],
  ...[LOCAL_GET, 2, ...splat(0x0a), ...EQ, LOCAL_SET, 4], // lf = v == LF
  // c0 = v < 0x20, but LF, TAB, and CR before LF
  ...[LOCAL_GET, 2, ...splat(0x20), ...LT_U],
  ...[LOCAL_GET, 4, LOCAL_GET, 2, ...splat(0x09), ...EQ, ...OR],
  ...[LOCAL_GET, 2, ...splat(0x0d), ...EQ, LOCAL_GET, 3, ...splat(0x0a), ...EQ, ...AND, ...OR],
  ...ANDNOT,
  ...[LOCAL_GET, 2, ...splat(0x7f), ...EQ, ...OR], // DEL
  // 0xC2 before 0x80-0x9F (a C1 control)
  ...[LOCAL_GET, 2, ...splat(0xc2), ...EQ, LOCAL_GET, 3, ...splat(0x80), ...SUB, ...splat(0x20), ...LT_U, ...AND, ...OR],
  ...[...ANY_TRUE, 0x0d, 1], // a suspect: done
  ...[GLOBAL_GET, 0, LOCAL_GET, 4, ...BITMASK, 0x69, 0x6a, GLOBAL_SET, 0], // lfs += popcnt(bitmask(lf))
  ...[LOCAL_GET, 0, 0x41, 16, 0x6a, LOCAL_SET, 0, 0x0c, 0], // p += 16; next
  ...[0x0b, 0x0b], // end loop, end block
  ...[LOCAL_GET, 0, 0x0b],
];

const MODULE = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, [1, 0x60, 2, 0x7f, 0x7f, 1, 0x7f]), // (i32, i32) -> i32
  ...section(2, [1, ...name("e"), ...name("m"), 0x02, 0x00, ...u32(CAPACITY / PAGE + 1)]), // memory import
  ...section(3, [1, 0]),
  ...section(6, [1, 0x7f, 0x01, 0x41, 0, 0x0b]), // global mut i32 = 0
  ...section(7, [2, ...name("scan"), 0x00, 0, ...name("lfs"), 0x03, 0]),
  ...section(10, [1, ...u32(BODY.length), ...BODY]),
]);

interface Scanner {
  readonly bytes: Uint8Array;
  readonly scan: (p: number, to: number) => number;
  readonly lfs: { value: number };
}

/** The module's one instance (undefined where it cannot run), and whether a search holds its memory. */
let scanner: Scanner | undefined | null = null;
let lent = false;

function instance(): Scanner | undefined {
  if (scanner !== null) return scanner;
  try {
    const memory = new WebAssembly.Memory({ initial: CAPACITY / PAGE + 1, maximum: CAPACITY / PAGE + 1 });
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(MODULE), { e: { m: memory } });
    scanner = {
      bytes: new Uint8Array(memory.buffer, 0, CAPACITY),
      scan: exports.scan as Scanner["scan"],
      lfs: exports.lfs as unknown as { value: number },
    };
  } catch {
    scanner = undefined; // no WebAssembly SIMD here: the JavaScript loop does it all
  }
  return scanner;
}

/**
 * A buffer of `size` bytes for one search's windows in the scanner's memory, when it is free and
 * large enough; else a plain one. Give it back with {@link returnScanBuffer} when done.
 */
export function scanBuffer(size: number): Uint8Array {
  const s = instance();
  if (!s || lent || size > CAPACITY) return new Uint8Array(size);
  lent = true;
  return s.bytes.subarray(0, size);
}

export function returnScanBuffer(buffer: Uint8Array): void {
  if (scanner && buffer.buffer === scanner.bytes.buffer) lent = false;
}

/**
 * From `from`, the 16-byte blocks of `b` before `to` that hold no suspect byte: where the first
 * other block starts (`to` minus less than 16 when all are clean), and the LFs passed. Undefined when
 * `b` is not in the scanner's memory.
 */
export function simdSkip(b: Uint8Array, from: number, to: number): { at: number; lfs: number } | undefined {
  const s = scanner;
  if (!s || b.buffer !== s.bytes.buffer) return undefined;
  s.lfs.value = 0;
  const at = s.scan(b.byteOffset + from, b.byteOffset + to) - b.byteOffset;
  return { at, lfs: s.lfs.value };
}
