// The page embeds asciinema-player's bundle from node_modules, but its licence and version are kept in
// src/ (the package exports neither): they must stay those of the player that is installed.
import { expect, test } from "bun:test";
import path from "node:path";
import { PLAYER_VERSION } from "../../src/views/html-page/index.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const installed = path.join(ROOT, "node_modules/asciinema-player");

test("the page's player version is the installed asciinema-player's", async () => {
  const pkg = (await Bun.file(path.join(installed, "package.json")).json()) as { version: string };
  expect(PLAYER_VERSION).toBe(pkg.version);
});

test("the licence the page carries is the installed asciinema-player's, byte for byte", async () => {
  const kept = await Bun.file(path.join(ROOT, "src/views/html-page/asciinema-player.LICENSE.txt")).text();
  expect(kept).toBe(await Bun.file(path.join(installed, "LICENSE")).text());
  expect(kept).toContain("Apache License");
});
