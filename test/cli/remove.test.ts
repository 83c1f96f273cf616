/**
 * `derun rm` and `derun gc` on sessions recorded by real `derun run` processes: what was asked
 * for goes, nothing else does; a running session only with --force (and its command runs on);
 * symlinks are removed as links, never followed out of the state root.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { sessionIds } from "../helpers/session.ts";
import { recordPipe, startLive, waitUntil } from "../helpers/cli-recordings.ts";

const rm = (root: string, ...args: string[]) => runDerun(["rm", ...args], { stateRoot: root });

describe("derun rm", () => {
  test("removes what it is asked for, says so per id, and nothing else", async () => {
    using state = tempDir();
    for (const id of ["a", "b", "c", "d"]) await recordPipe(state.path, id, `echo ${id}`);
    const done = await rm(state.path, "b", "last");
    expect([done.exitCode, text(done.stdout), text(done.stderr)]).toEqual([0, "b: removed\nd: removed\n", ""]);
    expect(sessionIds(state.path)).toEqual(["a", "c"]);

    const missing = await rm(state.path, "zz", "a");
    expect([missing.exitCode, text(missing.stdout), text(missing.stderr)]).toEqual([
      1,
      "a: removed\n",
      "derun: zz: not removed: session not found\n",
    ]);
    const malformed = await rm(state.path, "c", "../c");
    expect(malformed.exitCode).toBe(2);
    expect(text(malformed.stderr)).toStartWith('derun: invalid session id "../c"');
    expect(sessionIds(state.path)).toEqual(["c"]);
    expect((await rm(state.path)).exitCode).toBe(2);
    const json = await rm(state.path, "--json", "c");
    expect(JSON.parse(text(json.stdout))).toEqual({
      schema_version: "v1alpha1",
      outcomes: [{ session_id: "c", removed: true, reason: "removed" }],
    });
  });

  test("a running session only with --force, which deletes and stops nothing", async () => {
    using state = tempDir();
    const live = await startLive(state.path, "live", 6);
    const refused = await rm(state.path, "live");
    expect([refused.exitCode, text(refused.stderr)]).toEqual([1, "derun: live: not removed: it is running (--force deletes it anyway)\n"]);
    expect(sessionIds(state.path)).toEqual(["live"]);
    const forced = await rm(state.path, "--force", "live");
    expect([forced.exitCode, text(forced.stdout)]).toEqual([0, "live: removed\n"]);
    expect(sessionIds(state.path)).toEqual([]);
    // The command itself runs on and ends as it would have.
    live.write("still here\n");
    live.end();
    expect(await live.exited).toBe(6);
  });

  test("a symlinked session directory loses the link, never its target outside the state root", async () => {
    using state = tempDir();
    using outside = tempDir("derun-outside-");
    await recordPipe(state.path, "real", "echo secret");
    // A session-looking directory outside, linked into sessions/ under two names.
    cpSync(join(state.path, "sessions/real"), join(outside.path, "victim"), { recursive: true });
    symlinkSync(join(outside.path, "victim"), join(state.path, "sessions/linked"));
    const before = readdirSync(join(outside.path, "victim")).sort();

    const shown = await runDerun(["show", "linked"], { stateRoot: state.path });
    expect([shown.exitCode, text(shown.stderr)]).toEqual([1, "derun: unsafe path: session linked escapes its session directory\n"]);
    const done = await rm(state.path, "linked");
    expect([done.exitCode, text(done.stdout)]).toEqual([0, "linked: removed the link (its target is left alone)\n"]);
    expect(existsSync(join(state.path, "sessions/linked"))).toBe(false);
    expect(readdirSync(join(outside.path, "victim")).sort()).toEqual(before);
    expect(sessionIds(state.path)).toEqual(["real"]);
  });

  test("links inside a session directory are removed as links: files they point to stay", async () => {
    using state = tempDir();
    using outside = tempDir("derun-outside-");
    await recordPipe(state.path, "s", "echo hi");
    writeFileSync(join(outside.path, "precious"), "keep me");
    mkdirSync(join(outside.path, "dir"));
    writeFileSync(join(outside.path, "dir/inner"), "keep me too");
    symlinkSync(join(outside.path, "precious"), join(state.path, "sessions/s/planted-file"));
    symlinkSync(join(outside.path, "dir"), join(state.path, "sessions/s/planted-dir"));
    const done = await rm(state.path, "s");
    expect(done.exitCode).toBe(0);
    expect(existsSync(join(state.path, "sessions/s"))).toBe(false);
    expect(readFileSync(join(outside.path, "precious"), "utf8")).toBe("keep me");
    expect(readFileSync(join(outside.path, "dir/inner"), "utf8")).toBe("keep me too");
  });
});

describe("derun gc", () => {
  test("--dry-run lists what has expired and removes nothing; gc removes exactly that", async () => {
    using state = tempDir();
    await recordPipe(state.path, "old", "echo old");
    await runDerun(["run", "--session-id", "short", "--retention", "1", "--", "echo", "short"], { stateRoot: state.path });
    await recordPipe(state.path, "fresh", "echo fresh");
    const live = await startLive(state.path, "live");
    const expiry = JSON.parse(text((await runDerun(["show", "short", "--json"], { stateRoot: state.path })).stdout)).session.expires_at;
    await waitUntil(() => Date.now() > Date.parse(expiry), "short's retention to pass");

    const dry = await runDerun(["gc", "--dry-run"], { stateRoot: state.path });
    expect([dry.exitCode, text(dry.stdout), text(dry.stderr)]).toEqual([
      0,
      "would remove short (expired)\n",
      "derun: kept 3 sessions (1 running)\n",
    ]);
    expect(sessionIds(state.path)).toEqual(["fresh", "live", "old", "short"]);
    const json = JSON.parse(text((await runDerun(["gc", "--dry-run", "--json"], { stateRoot: state.path })).stdout));
    expect(json.dry_run).toBe(true);
    expect(json.outcomes).toContainEqual({ session_id: "short", cleanup_result: "remove", cleanup_reason: "expired" });
    expect(json.outcomes).toContainEqual({ session_id: "live", cleanup_result: "skip", cleanup_reason: "active_session" });

    const gc = await runDerun(["gc"], { stateRoot: state.path });
    expect([gc.exitCode, text(gc.stdout)]).toEqual([0, "removed short (expired)\n"]);
    expect(sessionIds(state.path)).toEqual(["fresh", "live", "old"]);
    expect(lstatSync(join(state.path, "sessions/live")).isDirectory()).toBe(true);
    live.end();
    expect(await live.exited).toBe(0);
  });
});
