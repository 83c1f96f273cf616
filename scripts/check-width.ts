/**
 * `bun scripts/check-width.ts` (run by `bun run lint`): fails on any line over 140 columns in the *.ts files under
 * src, test, bench, scripts and examples. Biome formats to 140 columns but never breaks a string, template or
 * comment, so this catches what it leaves: split the string with `+` (same value) or wrap the comment.
 *
 * Exceptions: regex literals, which cannot be split without becoming `new RegExp(...)` strings (harder to read and
 * to check). Each is named by its file and the start of its line (trimmed), so moving it does not break the check.
 *
 *   bun scripts/check-width.ts     prints "file:line: N columns" per offending line; exit 1 if any
 */
import path from "node:path";

const ROOT = path.resolve(import.meta.dir, "..");
const MAX = 140;
const DIRS = ["src", "test", "bench", "scripts", "examples"];

const EXCEPTIONS: { file: string; starts: string }[] = [
  { file: "src/secrets/shapes.ts", starts: "/^(?:\\*+|[xX]+|" },
  { file: "src/views/failure-rules.ts", starts: "/err|fail|fatal|panic|" },
  { file: "test/cli/why.test.ts", starts: '/^session bad: exited 128 · sh -c "echo working;' },
  { file: "test/mcp/last-failure.test.ts", starts: "/\\nleft out: [\\d,]+ lines not shown" },
  { file: "test/mcp/wait-command.test.ts", starts: "/^command 2 of session sh: exit 3 · in .* · " },
  { file: "test/ship/run-closure.test.ts", starts: "/^src\\/(cli\\/commands\\/(?!run\\.ts|index\\.ts)" },
];

function excepted(file: string, line: string): boolean {
  const trimmed = line.trimStart();
  return EXCEPTIONS.some((e) => e.file === file && trimmed.startsWith(e.starts));
}

const problems: string[] = [];
for (const dir of DIRS) {
  for await (const rel of new Bun.Glob(`${dir}/**/*.ts`).scan({ cwd: ROOT })) {
    const file = rel.split(path.sep).join("/");
    if (file.includes("/node_modules/")) continue;
    const lines = (await Bun.file(path.join(ROOT, rel)).text()).split("\n");
    lines.forEach((line, i) => {
      // Columns as an editor counts them: code points, not UTF-16 units.
      const columns = [...line.replace(/\r$/, "")].length;
      if (columns > MAX && !excepted(file, line)) problems.push(`${file}:${i + 1}: ${columns} columns`);
    });
  }
}
problems.sort();
for (const p of problems) console.error(p);
if (problems.length > 0) {
  console.error(`check-width: ${problems.length} line${problems.length === 1 ? "" : "s"} over ${MAX} columns`);
  process.exit(1);
}
