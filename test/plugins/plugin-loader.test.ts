import { afterAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadTransport } from "../../src/plugins/loader.ts";
import { DerunError } from "../../src/core/errors.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "derun-plugins-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const transportModule = path.resolve(import.meta.dir, "../../src/core/transport.ts");
const goodPlugin = `
import { defineTransport } from ${JSON.stringify(transportModule)};
export default defineTransport({
  meta: { name: "sandbox", description: "test plugin" },
  capabilities: { tty: false, resize: false, signals: true, input: "inherit" },
  supports: () => true,
  open: async () => { throw new Error("not used"); },
});
`;
const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};

async function loadError(spec: string, cwd?: string): Promise<DerunError> {
  const error = await loadTransport(spec, cwd).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DerunError);
  expect((error as DerunError).code).toBe("plugin");
  expect((error as DerunError).message).not.toContain("\n");
  return error as DerunError;
}

describe("loadTransport", () => {
  test("loads a built-in by name", async () => {
    expect((await loadTransport("pipe")).meta.name).toBe("pipe");
  });

  test("loads a .ts plugin by absolute path and by path relative to cwd", async () => {
    const file = write("good.ts", goodPlugin);
    expect((await loadTransport(file)).meta.name).toBe("sandbox");
    expect((await loadTransport("./good.ts", dir)).meta.name).toBe("sandbox");
  });

  test("loads a .js plugin", async () => {
    const file = write("good.js", goodPlugin);
    expect((await loadTransport(file)).meta.name).toBe("sandbox");
  });

  test("loads a plugin package by name, resolved from cwd", async () => {
    const pkg = path.join(dir, "node_modules", "derun-transport-sandbox");
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "derun-transport-sandbox", type: "module", main: "index.ts" }));
    fs.writeFileSync(path.join(pkg, "index.ts"), goodPlugin);
    expect((await loadTransport("derun-transport-sandbox", dir)).meta.name).toBe("sandbox");
  });

  test("a missing file or package is 'not found'", async () => {
    expect((await loadError("./missing.ts", dir)).message).toBe(`transport plugin "./missing.ts": not found`);
    expect((await loadError("derun-no-such-package-9c2", dir)).message).toBe(`transport plugin "derun-no-such-package-9c2": not found`);
  });

  test("a plugin that throws on import is 'failed to import' with the reason", async () => {
    const file = write("throws.ts", `throw new Error("boom at import");\nexport default {};\n`);
    expect((await loadError(file)).message).toBe(`transport plugin "${file}": failed to import: boom at import`);
  });

  test("a plugin with the wrong shape names what is wrong", async () => {
    const cases: Array<[string, string]> = [
      ["export const x = 1;", "no default export object (use defineTransport)"],
      [goodPlugin.replace(`open: async () => { throw new Error("not used"); },`, ""), "open must be a function (was missing)"],
      [goodPlugin.replace(`name: "sandbox"`, "name: 7"), "meta.name must be a string (was a number)"],
      [goodPlugin.replace(`name: "sandbox"`, `name: ""`), "meta.name must be non-empty"],
      [goodPlugin.replace(`tty: false`, `tty: "no"`), `capabilities.tty must be boolean (was "no")`],
      [goodPlugin.replace(`input: "inherit"`, `input: "stdin"`), `capabilities.input must be "forward" or "inherit" (was "stdin")`],
      [goodPlugin.replace(`supports: () => true,`, ""), "supports must be a function (was missing)"],
    ];
    for (const [index, [text, problem]] of cases.entries()) {
      const file = write(`bad-${index}.ts`, text);
      expect((await loadError(file)).message).toBe(`transport plugin "${file}": invalid shape: ${problem}`);
    }
  });
});
