/**
 * Files another user made are never used as they are. With a real second user (created here; the
 * test needs root for that and is skipped otherwise): a state root, `sessions/` or session
 * directory of theirs, or one anybody may write, is refused with a clear error before the command
 * runs, and nothing of theirs is written; their `logs/derun.jsonl` is not appended to; a planted
 * `output.bin` hard-linked to a file elsewhere is never truncated.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";

const isRoot = process.getuid?.() === 0;
const OTHER = `derun-t${process.pid}`;
let otherUid = -1;

/** Run `script` with sh as the other user. */
const asOther = (script: string) => {
  const done = Bun.spawnSync(["runuser", "-u", OTHER, "--", "sh", "-c", script], { stderr: "pipe" });
  if (done.exitCode !== 0) throw new Error(`as ${OTHER}: ${script}: ${done.stderr.toString()}`);
};

beforeAll(() => {
  if (!isRoot) return;
  const made = Bun.spawnSync(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", OTHER], { stderr: "pipe" });
  if (made.exitCode !== 0) throw new Error(`useradd: ${made.stderr.toString()}`);
  otherUid = Number(Bun.spawnSync(["id", "-u", OTHER]).stdout.toString().trim());
});

afterAll(() => {
  if (isRoot) Bun.spawnSync(["userdel", OTHER]);
});

/** A directory anyone may enter and write, as a shared /tmp-like place is. */
function shared(): { path: string } & Disposable {
  const dir = tempDir();
  fs.chmodSync(dir.path, 0o1777);
  return dir;
}

async function expectRefused(stateRoot: string, id: string, message: RegExp): Promise<void> {
  const done = await runDerun(["run", "--session-id", id, "--", "printf", "secret"], { stateRoot });
  expect({ exit: done.exitCode, stdout: text(done.stdout) }).toEqual({ exit: 1, stdout: "" });
  expect(text(done.stderr)).toMatch(message);
}

describe.skipIf(!isRoot)("another user's files (needs root to create a second user)", () => {
  test("a state root, sessions/ and session directory of theirs (0777, with their 0666 output.bin): " +
    "refused, their files untouched", async () => {
    using place = shared();
    const root = path.join(place.path, "derun");
    asOther(
      `umask 0; mkdir -m 0777 -p '${root}/sessions/build' && printf theirs > '${root}/sessions/build/output.bin' && chmod 0666 ` +
        `'${root}/sessions/build/output.bin'`,
    );
    expect(fs.statSync(root).uid).toBe(otherUid);
    await expectRefused(root, "build", /^derun: unsafe path: [^\n]*derun belongs to another user \(uid \d+\)[^\n]*\n$/);
    await expectRefused(root, "fresh", /belongs to another user/);
    expect(fs.readFileSync(path.join(root, "sessions", "build", "output.bin"), "utf8")).toBe("theirs");
    expect(fs.readdirSync(path.join(root, "sessions"))).toEqual(["build"]);

    // Our own root, but sessions/ theirs.
    using mine = tempDir();
    fs.mkdirSync(path.join(mine.path, "sessions"), { mode: 0o700 });
    fs.chownSync(path.join(mine.path, "sessions"), otherUid, otherUid);
    await expectRefused(mine.path, "build", /sessions belongs to another user/);
    expect(fs.readdirSync(path.join(mine.path, "sessions"))).toEqual([]);

    // Our own sessions/, but a session directory theirs, anybody may write.
    using ours = tempDir();
    fs.mkdirSync(path.join(ours.path, "sessions"), { mode: 0o700 });
    asOther("true");
    fs.mkdirSync(path.join(ours.path, "sessions", "build"), { mode: 0o777 });
    fs.chmodSync(path.join(ours.path, "sessions", "build"), 0o777);
    fs.chownSync(path.join(ours.path, "sessions", "build"), otherUid, otherUid);
    await expectRefused(ours.path, "build", /sessions\/build belongs to another user/);
    expect(fs.readdirSync(path.join(ours.path, "sessions", "build"))).toEqual([]);
  }, 60_000);

  test("a state root anybody may write, even if ours: refused (chmod go-w says how)", async () => {
    using place = tempDir();
    fs.chmodSync(place.path, 0o777);
    await expectRefused(
      place.path,
      "build",
      /^derun: unsafe path: [^\n]* is writable by other users \(mode 0777\); chmod go-w it[^\n]*\n$/,
    );
    expect(fs.readdirSync(place.path)).toEqual([]);
  }, 60_000);

  test("a state root below a directory of theirs, or one anybody may write without the sticky bit: refused, nothing written", async () => {
    // Its owner or writers could move the root aside and put their own directory or link there.
    using place = shared();
    const theirs = path.join(place.path, "theirs");
    asOther(`mkdir '${theirs}' && chmod 0777 '${theirs}'`);
    await expectRefused(
      path.join(theirs, "derun"),
      "build",
      /^derun: unsafe path: [^\n]*theirs, above the state root, belongs to another user \(uid \d+\)[^\n]*\n$/,
    );
    expect(fs.readdirSync(theirs)).toEqual([]);

    // Given as a link of ours that leads below their directory: where it leads is checked too.
    using mine = tempDir();
    fs.mkdirSync(path.join(theirs, "ours"), { mode: 0o700 });
    fs.symlinkSync(path.join(theirs, "ours"), path.join(mine.path, "link"));
    await expectRefused(path.join(mine.path, "link"), "build", /theirs, above the state root, belongs to another user/);
    expect(fs.readdirSync(path.join(theirs, "ours"))).toEqual([]);

    // Ours, but anybody may write it and it has no sticky bit; with it (as /tmp has) it is fine.
    const open = path.join(mine.path, "open");
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    await expectRefused(path.join(open, "derun"), "build", /open, above the state root, is writable by other users \(mode 0777\)/);
    expect(fs.readdirSync(open)).toEqual([]);
    fs.chmodSync(open, 0o1777);
    const done = await runDerun(["run", "--session-id", "build", "--", "printf", "ran"], { stateRoot: path.join(open, "derun") });
    expect({ exit: done.exitCode, stdout: text(done.stdout) }).toEqual({ exit: 0, stdout: "ran" });
  }, 60_000);

  test("group-write above the root: fine when the group is this user's own private group, refused when another's", async () => {
    // As Fedora's umask 002 leaves ~/.local and ~/.local/state (0775, the user's private group):
    // root's group here, when no other user has it (as on Debian).
    using mine = tempDir();
    const rootGroupAlone =
      /^root:[^:]*:0:$/m.test(fs.readFileSync("/etc/group", "utf8")) &&
      !/^(?!root:)[^:]*:[^:]*:\d+:0:/m.test(fs.readFileSync("/etc/passwd", "utf8"));
    if (rootGroupAlone) {
      const own = path.join(mine.path, "own");
      fs.mkdirSync(own, { mode: 0o775 });
      fs.chmodSync(own, 0o775);
      fs.chownSync(own, process.getuid!(), process.getgid!());
      const done = await runDerun(["run", "--session-id", "build", "--", "printf", "ran"], { stateRoot: path.join(own, "derun") });
      expect({ exit: done.exitCode, stdout: text(done.stdout) }).toEqual({ exit: 0, stdout: "ran" });
    } else console.log("skip (the accepted half): root's group has other members on this machine");
    // The other user's group may write it: they could swap the root.
    const shared = path.join(mine.path, "shared");
    fs.mkdirSync(shared, { mode: 0o775 });
    fs.chmodSync(shared, 0o775);
    fs.chownSync(shared, process.getuid!(), Number(Bun.spawnSync(["id", "-g", OTHER]).stdout.toString().trim()));
    await expectRefused(path.join(shared, "derun"), "build", /shared, above the state root, is writable by other users \(mode 0775\)/);
    expect(fs.readdirSync(shared)).toEqual([]);
  }, 60_000);

  test("their logs/derun.jsonl is not appended to; the run goes on, recorded", async () => {
    using root = tempDir();
    fs.mkdirSync(path.join(root.path, "logs"), { mode: 0o700 });
    const log = path.join(root.path, "logs", "derun.jsonl");
    fs.writeFileSync(log, "theirs\n", { mode: 0o666 });
    fs.chownSync(log, otherUid, otherUid);
    const done = await runDerun(["run", "--session-id", "logged", "--", "printf", "ran"], {
      stateRoot: root.path,
      env: { DERUN_LOG_LEVEL: "debug" },
    });
    expect({ exit: done.exitCode, stdout: text(done.stdout) }).toEqual({ exit: 0, stdout: "ran" });
    expect(fs.readFileSync(log, "utf8")).toBe("theirs\n");
    expect(fs.readFileSync(path.join(root.path, "sessions", "logged", "output.bin"), "utf8")).toBe("ran");
  }, 60_000);

  test("a planted output.bin hard-linked to a file elsewhere is never truncated or written", async () => {
    using root = tempDir();
    using elsewhere = tempDir();
    const target = path.join(elsewhere.path, "precious");
    fs.writeFileSync(target, "precious content");
    fs.mkdirSync(path.join(root.path, "sessions", "build"), { recursive: true, mode: 0o700 });
    fs.linkSync(target, path.join(root.path, "sessions", "build", "output.bin"));
    const done = await runDerun(["run", "--session-id", "build", "--", "printf", "overwrite"], { stateRoot: root.path });
    expect(done.exitCode).toBe(2);
    expect(text(done.stderr)).toMatch(/^derun: session already exists: build\n/);
    expect(fs.readFileSync(target, "utf8")).toBe("precious content");
  }, 60_000);
});
