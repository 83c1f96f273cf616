/**
 * `derun export -o FILE` never writes through a symlink (an outside file is not replaced, a
 * dangling link does not create its target) and leaves FILE at mode 0600 also when it existed.
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";

test("export -o: a symlink is refused, not followed; an existing file ends up 0600 with the new content", async () => {
  using root = tempDir();
  using work = tempDir();
  using outside = tempDir();
  expect((await runDerun(["run", "--session-id", "e", "--", "printf", "recorded"], { stateRoot: root.path })).exitCode).toBe(0);

  const victim = path.join(outside.path, "victim");
  fs.writeFileSync(victim, "keep me");
  const link = path.join(work.path, "link.cast");
  fs.symlinkSync(victim, link);
  const dangling = path.join(work.path, "dangling.cast");
  fs.symlinkSync(path.join(outside.path, "created"), dangling);
  for (const target of [link, dangling]) {
    const done = await runDerun(["export", "e", "-o", target], { stateRoot: root.path });
    expect(done.exitCode).toBe(1);
    expect(text(done.stderr)).toMatch(/^derun: [^\n]*symlink[^\n]*\n$/);
    expect(fs.lstatSync(target).isSymbolicLink()).toBe(true);
  }
  expect(fs.readFileSync(victim, "utf8")).toBe("keep me");
  expect(fs.existsSync(path.join(outside.path, "created"))).toBe(false);

  const existing = path.join(work.path, "existing.cast");
  fs.writeFileSync(existing, "old", { mode: 0o644 });
  fs.chmodSync(existing, 0o644);
  const other = path.join(work.path, "hardlink");
  fs.linkSync(existing, other); // a second name for the old file: it must keep its content
  const done = await runDerun(["export", "e", "-o", existing], { stateRoot: root.path });
  expect(done.exitCode).toBe(0);
  expect(fs.statSync(existing).mode & 0o777).toBe(0o600);
  expect(JSON.parse(fs.readFileSync(existing, "utf8").split("\n")[0]!)).toMatchObject({ version: 2 });
  expect(fs.readFileSync(other, "utf8")).toBe("old");
  expect(fs.readdirSync(work.path).sort()).toEqual(["dangling.cast", "existing.cast", "hardlink", "link.cast"]); // no temp file left
}, 60_000);
