/**
 * Nothing is written outside the state root, whichever component below it is a symlink: `sessions/`,
 * `logs/`, a session directory or an artifact. A run that would record through such a link is
 * refused (exit 1, one line saying why, the command not started) rather than run unrecorded. The
 * state root itself may be a link (a moved ~/.local/state is common). Invalid ids create nothing.
 */
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { call } from "../helpers/harness.ts";
import { connectStdio } from "../helpers/stdio-client.ts";

const TIMEOUT = 30_000;

/** Every file below `dir`, relative, for "nothing was written here". */
const filesBelow = (dir: string): string[] =>
  (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();

async function expectRefused(
  stateRoot: string,
  id: string,
  outside: string,
  why = { exit: 1, message: /^derun: [^\n]*(unsafe|symlink|link)[^\n]*\n$/ },
): Promise<void> {
  const before = filesBelow(outside);
  const done = await runDerun(["run", "--session-id", id, "--", "printf", "ran"], { stateRoot });
  expect(done.exitCode).toBe(why.exit);
  expect(text(done.stdout)).toBe(""); // the command was not started
  expect(text(done.stderr)).toMatch(why.message);
  expect(filesBelow(outside)).toEqual(before);
}

describe("symlinks below the state root", () => {
  test(
    "a symlinked sessions/ directory: derun run refuses, derun mcp lists and reads nothing through it",
    async () => {
      using root = tempDir();
      using outside = tempDir();
      fs.symlinkSync(outside.path, path.join(root.path, "sessions"));
      await expectRefused(root.path, "through-link", outside.path);
      expect(filesBelow(outside.path)).toEqual([]);

      // A session someone placed out there is not read through the link either.
      using elsewhere = tempDir();
      expect((await runDerun(["run", "--session-id", "planted", "--", "printf", "x"], { stateRoot: elsewhere.path })).exitCode).toBe(0);
      fs.cpSync(path.join(elsewhere.path, "sessions", "planted"), path.join(outside.path, "planted"), { recursive: true });
      await using client = await connectStdio(root.path);
      expect((await call(client, "derun_list_sessions", {})).text).toMatch(/^unsafe path: .*sessions is a symlink/);
      expect((await call(client, "derun_get_session", { session_id: "planted" })).isError).toBe(true);
    },
    TIMEOUT,
  );

  test(
    "a symlinked logs/ directory is not written through; the run itself goes on, recorded",
    async () => {
      using root = tempDir();
      using outside = tempDir();
      fs.symlinkSync(outside.path, path.join(root.path, "logs"));
      const done = await runDerun(["run", "--session-id", "logged", "--", "printf", "ran"], {
        stateRoot: root.path,
        env: { DERUN_LOG_LEVEL: "debug" },
      });
      expect(done.exitCode).toBe(0);
      expect(text(done.stdout)).toBe("ran");
      expect(fs.readFileSync(path.join(root.path, "sessions", "logged", "output.bin"), "utf8")).toBe("ran");
      expect(filesBelow(outside.path)).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "a session directory that is a symlink out of the root: refused, exit 1",
    async () => {
      using root = tempDir();
      using outside = tempDir();
      fs.mkdirSync(path.join(root.path, "sessions"), { mode: 0o700 });
      fs.mkdirSync(path.join(outside.path, "evil"));
      fs.symlinkSync(path.join(outside.path, "evil"), path.join(root.path, "sessions", "evil"));
      await expectRefused(root.path, "evil", outside.path);
      fs.symlinkSync(path.join(outside.path, "nowhere"), path.join(root.path, "sessions", "dangling"));
      await expectRefused(root.path, "dangling", outside.path);
      expect(fs.existsSync(path.join(outside.path, "nowhere"))).toBe(false);
    },
    TIMEOUT,
  );

  for (const artifact of ["output.bin", "index.jsonl", "append.lock", "meta.json"]) {
    test(
      `an artifact (${artifact}) that is a symlink out of the root: its directory, not made by this run, is refused`,
      async () => {
        using root = tempDir();
        using outside = tempDir();
        const dir = path.join(root.path, "sessions", "art");
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        fs.writeFileSync(path.join(outside.path, "target"), "");
        fs.symlinkSync(path.join(outside.path, "target"), path.join(dir, artifact));
        // Only the run whose mkdir made a session directory records into it: this one is someone else's.
        await expectRefused(root.path, "art", outside.path, { exit: 2, message: /^derun: session already exists: art\n/ });
        expect(fs.readFileSync(path.join(outside.path, "target"), "utf8")).toBe("");
      },
      TIMEOUT,
    );
  }

  test(
    "the state root itself may be a symlink: sessions are recorded in its target",
    async () => {
      using real = tempDir();
      using links = tempDir();
      const root = path.join(links.path, "state");
      fs.symlinkSync(real.path, root);
      const done = await runDerun(["run", "--session-id", "via-root-link", "--", "printf", "ran"], { stateRoot: root });
      expect(done.exitCode).toBe(0);
      expect(fs.readFileSync(path.join(real.path, "sessions", "via-root-link", "output.bin"), "utf8")).toBe("ran");
    },
    TIMEOUT,
  );
});

describe("invalid session ids", () => {
  for (const id of [".", "..", "../x", "a/b", "", "-x", "x".repeat(129)]) {
    test(
      `${JSON.stringify(id.slice(0, 20))}: exit 2, and not even sessions/ is created`,
      async () => {
        using root = tempDir();
        const done = await runDerun(["run", `--session-id=${id}`, "--", "printf", "ran"], { stateRoot: root.path });
        expect(done.exitCode).toBe(2);
        expect(text(done.stdout)).toBe("");
        expect(fs.readdirSync(root.path)).toEqual([]);
      },
      TIMEOUT,
    );
  }

  test(
    "derun mcp asked about invalid ids creates no session directory",
    async () => {
      using root = tempDir();
      await using client = await connectStdio(root.path);
      for (const id of [".", "..", "../x", "a/b"]) {
        for (const tool of ["derun_get_session", "derun_read_output"])
          expect((await call(client, tool, { session_id: id })).isError).toBe(true);
      }
      expect(fs.existsSync(path.join(root.path, "sessions"))).toBe(false);
    },
    TIMEOUT,
  );
});

describe("the start-up sweep and unreadable sessions", () => {
  /** A session directory without meta.json, last touched two hours ago. */
  function staleOrphan(root: string, id: string): void {
    const dir = path.join(root, "sessions", id);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(dir, "output.bin"), "debris");
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    fs.utimesSync(path.join(dir, "output.bin"), twoHoursAgo, twoHoursAgo);
    fs.utimesSync(dir, twoHoursAgo, twoHoursAgo);
  }

  test(
    "expire by the retention of the run that sweeps (the contract's sweep TTL), not always 24 h",
    async () => {
      using root = tempDir();
      staleOrphan(root.path, "orphan");
      expect((await runDerun(["run", "--retention", "3h", "--", "true"], { stateRoot: root.path })).exitCode).toBe(0);
      expect(fs.existsSync(path.join(root.path, "sessions", "orphan"))).toBe(true);

      fs.rmSync(path.join(root.path, "last-sweep"));
      expect((await runDerun(["run", "--retention", "1h", "--", "true"], { stateRoot: root.path })).exitCode).toBe(0);
      expect(fs.existsSync(path.join(root.path, "sessions", "orphan"))).toBe(false);
    },
    TIMEOUT,
  );
});
