/**
 * Two `derun gc` at once over the same expired sessions: a session the other sweep removed counts
 * as removed, so neither reports a false failure, and every session is gone.
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";

const SESSIONS = 300;

test("two sweeps at once: no false failures, all expired sessions removed", async () => {
  using root = tempDir();
  expect((await runDerun(["run", "--session-id", "base", "--", "printf", "x"], { stateRoot: root.path })).exitCode).toBe(0);
  const sessions = path.join(root.path, "sessions");
  const template = path.join(root.path, "template");
  fs.renameSync(path.join(sessions, "base"), template);
  const final = JSON.parse(fs.readFileSync(path.join(template, "final.json"), "utf8"));
  fs.writeFileSync(
    path.join(template, "final.json"),
    JSON.stringify({ ...final, ended_at: new Date(Date.now() - 3 * 86_400_000).toISOString() }),
  );

  // A few rounds: which sweep meets which half-removed directory is luck.
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < SESSIONS; i++) fs.cpSync(template, path.join(sessions, `old-${i}`), { recursive: true });
    const sweeps = await Promise.all([0, 1].map(() => runDerun(["gc"], { stateRoot: root.path })));
    for (const done of sweeps) {
      const errors = text(done.stderr)
        .split("\n")
        .filter((line) => line.includes("not removed"));
      expect({ round, exit: done.exitCode, errors: errors.length, first: errors.slice(0, 2) }).toEqual({
        round,
        exit: 0,
        errors: 0,
        first: [],
      });
    }
    const removed = sweeps.flatMap((done) =>
      text(done.stdout)
        .split("\n")
        .filter((line) => line.startsWith("removed "))
        .map((line) => line.split(" ")[1]),
    );
    expect(new Set(removed).size).toBe(SESSIONS);
    expect(fs.readdirSync(sessions)).toEqual([]);
  }
}, 120_000);

test("a removal a killed sweep left is finished and said of its session, not of the name it had", async () => {
  using root = tempDir();
  const aside = path.join(root.path, "sessions", ".removing-half.12345.x");
  fs.mkdirSync(aside, { recursive: true });
  fs.writeFileSync(path.join(aside, "output.bin"), "left");
  const done = await runDerun(["gc"], { stateRoot: root.path });
  expect(done.exitCode).toBe(0);
  expect(text(done.stdout)).toBe("removed half (unfinished removal)\n");
  expect(fs.readdirSync(path.join(root.path, "sessions"))).toEqual([]);
});
