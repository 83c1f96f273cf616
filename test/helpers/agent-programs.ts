/**
 * Inputs for the programs the agent-view tests record through `derun run`: a small C project built
 * by make (compiler warnings with file:line among the compile lines), a bun test suite of a shopping
 * cart with one failing test, a program that reports its window size after a resize, and a file to
 * page through. The spinner and progress bar come from the view tests' programs.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export { spinnerScript } from "./view-programs.ts";

/** `units` C files, every fourth with two warnings (-Wsign-compare, -Wunused-variable), and a Makefile. */
export function cProject(dir: string, units: number): string {
  mkdirSync(dir, { recursive: true });
  for (let i = 1; i <= units; i++) {
    const source =
      i % 4 === 0
        ? `int unit_${i}(int n) {\n  int unused_${i} = n * 2;\n  unsigned int limit = ${i};\n  if (n < limit) return n;\n  return 0;\n}\n`
        : `int unit_${i}(int n) { return n + ${i}; }\n`;
    writeFileSync(join(dir, `unit_${String(i).padStart(3, "0")}.c`), source);
  }
  writeFileSync(
    join(dir, "Makefile"),
    "CFLAGS = -Wall -Wextra -O0\nOBJS = $(patsubst %.c,%.o,$(sort $(wildcard unit_*.c)))\nlibunits.a: $(OBJS)\n\tar rcs $@ " +
      "$^\n\t@echo built libunits.a\n",
  );
  return dir;
}

const ITEMS = [
  "apples",
  "pears",
  "plums",
  "figs",
  "kiwis",
  "limes",
  "dates",
  "grapes",
  "mangos",
  "melons",
  "cherries",
  "lemons",
  "quinces",
  "papayas",
  "guavas",
  "apricots",
];

/** A bun test file: a cart's tests, all passing but one whose total is off by one. */
export function cartSuite(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const tests = ITEMS.flatMap((item, i) => [
    `test("adds ${item}", () => { expect(add({}, "${item}", ${i + 1})).toEqual({ ${item}: ${i + 1} }); });`,
    `test("removes ${item}", () => { expect(remove({ ${item}: 1 }, "${item}")).toEqual({}); });`,
    `test("counts ${item}", () => { expect(count({ ${item}: ${i + 2} })).toBe(${i + 2}); });`,
  ]);
  tests.splice(10, 0, `test("totals the cart", () => { expect(total({ apples: 3, pears: 2 })).toBe(6); });`);
  const file = [
    'import { expect, test } from "bun:test";',
    "const add = (cart: Record<string, number>, item: string, n: number) => ({ ...cart, [item]: (cart[item] ?? 0) + n });",
    "const remove = (cart: Record<string, number>, item: string) => { const { [item]: _, ...rest } = cart; return rest; };",
    "const count = (cart: Record<string, number>) => Object.values(cart).reduce((a, b) => a + b, 0);",
    "const total = count;",
    ...tests,
    "",
  ].join("\n");
  writeFileSync(join(dir, "cart.test.ts"), file);
  return dir;
}

/** Prints its window size each time it changes (SIGWINCH), a line wider than the window, and waits for "q". */
export const sizeReporter = `
import os, signal, sys
def report(*_):
    c, r = os.get_terminal_size()
    print(f"window {c}x{r}", flush=True)
    print("wide:" + "-" * (c + 20) + ":end", flush=True)
signal.signal(signal.SIGWINCH, report)
report()
while sys.stdin.read(1) != "q":
    pass
`;

/** A text file of `lines` numbered lines, for `less`. */
export function document(path: string, lines: number): string {
  writeFileSync(path, Array.from({ length: lines }, (_, i) => `line ${i + 1} of a document paged with less\n`).join(""));
  return path;
}
