import { expect, test } from "bun:test";
import { builtinTransports } from "../../src/plugins/index.ts";

test("the registry lists exactly the contract's transport modes", () => {
  expect(Object.keys(builtinTransports).sort()).toEqual(["pipe", "posix-pty", "windows-conpty"]);
});

for (const [key, load] of Object.entries(builtinTransports)) {
  test(`${key}: imports without side effects and meta.name equals its key`, async () => {
    const listenersBefore = process.listenerCount("SIGWINCH") + process.stdout.listenerCount("resize");
    const module = await load();
    expect(module.default.meta.name).toBe(key);
    expect(typeof module.default.open).toBe("function");
    expect(process.listenerCount("SIGWINCH") + process.stdout.listenerCount("resize")).toBe(listenersBefore);
  });
}
