/**
 * `derun run` pays for no other command: bundled as scripts/build.ts bundles the binary (code
 * splitting, ESM), the modules `derun run -- true` evaluates are the entry's static imports plus
 * those of the run command's chunk, and none of them is a session command, a query, the read engine, a view, the
 * MCP server, or arktype, consola or citty (those load through the lazy command map only).
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, tempDir } from "../helpers/cli.ts";

test("the run command's static module closure holds none of the other commands' code", async () => {
  using out = tempDir("derun-closure-");
  const built = await Bun.build({
    entrypoints: [join(REPO_ROOT, "src/cli/index.ts")],
    outdir: out.path,
    target: "bun",
    splitting: true,
    format: "esm",
    minify: false, // the `// src/...` comments say which module is in which chunk
  });
  expect(built.success).toBe(true);
  const chunks = new Map(built.outputs.map((output) => [output.path.split("/").pop()!, readFileSync(output.path, "utf8")]));
  const modulesOf = (chunk: string) =>
    [...chunks.get(chunk)!.matchAll(/^\/\/ (\S*(?:src|node_modules)\/\S+)$/gm)].map((m) =>
      m[1]!.replace(/^.*?(src|node_modules)\//, "$1/"),
    );
  const imports = (chunk: string) =>
    [...chunks.get(chunk)!.matchAll(/^import\s*(?:[^;]*?from\s*)?"\.\/(chunk-[a-z0-9]+\.js)"/gms)].map((m) => m[1]!);
  const runChunk = [...chunks.keys()].find((chunk) => modulesOf(chunk).includes("src/cli/commands/run.ts"));
  expect(runChunk).toBeDefined();
  const closure = new Set<string>();
  const visit = (chunk: string) => {
    if (closure.has(chunk)) return;
    closure.add(chunk);
    imports(chunk).forEach(visit);
  };
  visit("index.js");
  visit(runChunk!);
  const modules = new Set([...closure].flatMap(modulesOf));
  expect(modules.has("src/recorder/run-session.ts")).toBe(true); // the analysis sees the run path
  const forbidden = [...modules].filter((module) =>
    /^src\/(cli\/commands\/(?!run\.ts|index\.ts)|cli\/(completion|help|ui|reader|table|format)|queries\/|transcript\/|views\/|mcp\/)|^node_modules\/(arktype|@ark|consola|citty|@modelcontextprotocol|zod)\//.test(
      module,
    ),
  );
  expect(forbidden).toEqual([]);
});
