/**
 * A mask map kept on disk (mask-map.bin) is trusted while its key holds, and the key names the
 * masking by MASKING (src/transcript/mask-map-file.ts), a number bumped by hand: a change to what is
 * masked that forgot the bump would let a map made before it be believed, and search would read the
 * old ranges as `*` and skip the passes the map stands for. So the code that decides the ranges is
 * digested here and compared with MASKING_SOURCE, recorded beside MASKING (and put in the key
 * too, so recording it is enough to set old maps aside). The code is every file of src/secrets and
 * what the map's build runs (src/transcript/masking.ts, mask-map.ts), followed through their
 * imports (type-only ones left out) into src/transcript and src/views; each file as Bun transpiles
 * it, so an edit to comments or types changes nothing.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { Glob } from "bun";
import { MASKING, MASKING_SOURCE } from "../../src/transcript/mask-map-file.ts";

const ROOT = join(import.meta.dir, "../..");
const ROOTS = [...new Glob("src/secrets/**/*.ts").scanSync(ROOT), "src/transcript/masking.ts", "src/transcript/mask-map.ts"];
/** Where code that decides a mask lives; imports are followed through other rooms, but only these files digested. */
const ROOMS = ["src/secrets/", "src/transcript/", "src/views/"];
/** It holds the digest (and MASKING): digesting it would change what it records. */
const HOLDER = "src/transcript/mask-map-file.ts";

const transpiler = new Bun.Transpiler({ loader: "ts" });

/** The files reached from ROOTS by value imports, in ROOMS, sorted. */
function maskingFiles(): string[] {
  const seen = new Set<string>();
  const todo = [...ROOTS];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const { path } of transpiler.scanImports(readFileSync(join(ROOT, file), "utf8"))) {
      if (path.startsWith(".") && path.endsWith(".ts")) todo.push(relative(ROOT, join(ROOT, dirname(file), path)));
    }
  }
  return [...seen].filter((f) => f !== HOLDER && ROOMS.some((room) => f.startsWith(room))).sort();
}

function digest(files: readonly string[]): string {
  const hash = new Bun.CryptoHasher("sha256");
  for (const file of files) {
    const code = transpiler.transformSync(readFileSync(join(ROOT, file), "utf8").replaceAll("\r\n", "\n"));
    hash.update(`${file}\0${code}\0`);
  }
  return hash.digest("hex");
}

test("the files digested are the masking's: the rules, the masker, the raw and assembled passes, the map's build", () => {
  const files = maskingFiles();
  for (const file of [
    "src/secrets/masker.ts",
    "src/secrets/rules.ts",
    "src/transcript/masking.ts",
    "src/transcript/assembled.ts",
    "src/transcript/mask-map.ts",
    "src/views/drawn-by.ts",
  ])
    expect(files).toContain(file);
  // Search's use of the map is not part of what the map holds.
  expect(files).not.toContain("src/transcript/search.ts");
  expect(files).not.toContain(HOLDER);
});

test("MASKING_SOURCE is the digest of the masking code (else: bump MASKING and record the new digest)", () => {
  const now = digest(maskingFiles());
  if (now !== MASKING_SOURCE) {
    throw new Error(
      `masking changed: bump MASKING (now ${MASKING}) and record the new digest in ${HOLDER}: ` +
        `MASKING_SOURCE = "${now}" (mask maps on disk made by the code before are then made again)`,
    );
  }
});
