/**
 * Recording on a full disk: the command, its output and its exit status are untouched; the
 * session's outcome stays discoverable (final.json with the exit code and why recording stopped);
 * index.jsonl and output.bin agree; derun says once, in one line on stderr, that recording stopped.
 *
 * Two ways to fill a disk: RLIMIT_FSIZE (`ulimit -f` in a wrapper shell, no root needed: writes past
 * the limit fail with EFBIG), and a real 1 MiB tmpfs as the state root where mounting is allowed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, sha256, tempDir, text, type Completed } from "../helpers/cli.ts";

const TIMEOUT = 60_000;
/** About 15 MB of numbered lines: the transcript is the same bytes, so any prefix can be checked. */
const COMMAND = ["sh", "-c", "seq 1 2000000; exit 3"];
const expected = Bun.spawnSync(["seq", "1", "2000000"]).stdout;

/** A shell that limits file sizes to `kib` KiB, then runs derun (which must not die of the SIGXFSZ that follows). */
const fsizeLimit = (kib: number) => ["bash", "-c", `ulimit -f ${kib}; exec "$@"`, "bash"];

interface Files {
  readonly dirs: string[];
  readonly withoutMeta: string[];
}

function sessionDirs(root: string): Files {
  const sessions = path.join(root, "sessions");
  const dirs = fs.existsSync(sessions) ? fs.readdirSync(sessions) : [];
  return { dirs, withoutMeta: dirs.filter((d) => !fs.existsSync(path.join(sessions, d, "meta.json"))) };
}

/** index.jsonl is whole lines, contiguous from 0, covering exactly output.bin, which is a prefix of what reached stdout. */
function expectConsistent(dir: string, stdout: Uint8Array): number {
  const indexText = fs.readFileSync(path.join(dir, "index.jsonl"), "utf8");
  expect(indexText === "" || indexText.endsWith("\n")).toBe(true);
  let end = 0;
  for (const line of indexText.split("\n").filter(Boolean)) {
    const record = JSON.parse(line);
    expect(record.offset).toBe(end);
    end += record.length;
  }
  const output = fs.readFileSync(path.join(dir, "output.bin"));
  expect(output.length).toBe(end);
  expect(sha256(output)).toBe(sha256(stdout.subarray(0, output.length)));
  return end;
}

/** The run went on as without derun, and derun said once, in one line, that recording stopped. */
function expectUntouchedRun(done: Completed): void {
  expect(done.exitCode).toBe(3);
  expect(done.stdout.length).toBe(expected.length);
  expect(sha256(done.stdout)).toBe(sha256(expected));
  const stderr = text(done.stderr);
  expect(stderr).toMatch(/^derun: [^\n]*record[^\n]*\n$/);
  expect(stderr.length).toBeLessThan(300);
}

function expectOutcome(root: string, id: string): Record<string, unknown> {
  const dir = path.join(root, "sessions", id);
  const final = JSON.parse(fs.readFileSync(path.join(dir, "final.json"), "utf8"));
  expect(final).toMatchObject({ state: "exited", exit_code: 3 });
  expect(String(final.error)).toMatch(/E(FBIG|NOSPC)|too large|no space/i);
  return final;
}

describe("RLIMIT_FSIZE (no root needed)", () => {
  test(
    "a file size limit hit mid-run: outcome recorded, index and output agree, one line on stderr",
    async () => {
      using root = tempDir();
      const done = await runDerun(["run", "--session-id", "limited", "--", ...COMMAND], { stateRoot: root.path, wrap: fsizeLimit(1000) });
      expectUntouchedRun(done);
      expectOutcome(root.path, "limited");
      const recorded = expectConsistent(path.join(root.path, "sessions", "limited"), done.stdout);
      expect(recorded).toBeGreaterThan(0);
      expect(recorded).toBeLessThanOrEqual(1000 * 1024);
    },
    TIMEOUT,
  );

  test(
    "no file can grow from the start: the command runs as without derun, stderr says why, no debris",
    async () => {
      using root = tempDir();
      const done = await runDerun(["run", "--session-id", "nothing", "--", ...COMMAND], { stateRoot: root.path, wrap: fsizeLimit(0) });
      expectUntouchedRun(done);
      expect(sessionDirs(root.path).withoutMeta).toEqual([]);
    },
    TIMEOUT,
  );
});

/** A 1 MiB tmpfs, or why there cannot be one here. */
function mountSmallTmpfs(): { path: string; skip?: string } & Disposable {
  const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "derun-tmpfs-"));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  if (process.platform !== "linux") return { path: dir, skip: "tmpfs is Linux only", [Symbol.dispose]: remove };
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", dir], { stderr: "pipe" });
  if (mounted.exitCode !== 0) {
    return {
      path: dir,
      skip: `cannot mount a tmpfs here: ${text(mounted.stderr).trim() || `mount exited ${mounted.exitCode}`}`,
      [Symbol.dispose]: remove,
    };
  }
  return {
    path: dir,
    [Symbol.dispose]: () => {
      Bun.spawnSync(["umount", dir]);
      remove();
    },
  };
}

describe("a 1 MiB tmpfs as the state root", () => {
  const disposers: Disposable[] = [];
  afterAll(() => disposers.forEach((d) => d[Symbol.dispose]()));

  const probe = mountSmallTmpfs();
  probe[Symbol.dispose]();
  if (probe.skip) console.warn(`skipping tmpfs tests: ${probe.skip}`);

  test.skipIf(probe.skip !== undefined)(
    "the disk fills mid-run: outcome recorded, index and output agree, one line on stderr",
    async () => {
      const disk = mountSmallTmpfs();
      disposers.push(disk);
      // The disk budget's defaults (10% of this 1 MiB filesystem, 15% kept free) would remove the
      // session after the run, as they should: this test is about what a full disk leaves behind.
      using config = tempDir();
      fs.mkdirSync(path.join(config.path, "derun"));
      fs.writeFileSync(path.join(config.path, "derun", "config.json"), '{"storage":{"max_total":"100%","keep_free":"0%"}}');
      const env = { XDG_CONFIG_HOME: config.path };
      const done = await runDerun(["run", "--session-id", "full", "--", ...COMMAND], { stateRoot: disk.path, env });
      expectUntouchedRun(done);
      expectOutcome(disk.path, "full");
      expectConsistent(path.join(disk.path, "sessions", "full"), done.stdout);
    },
    TIMEOUT,
  );

  test.skipIf(probe.skip !== undefined)(
    "the disk is full from the start: the command runs, stderr says why, no debris",
    async () => {
      const disk = mountSmallTmpfs();
      disposers.push(disk);
      // Fill it to the last block.
      const fd = fs.openSync(path.join(disk.path, "filler"), "w");
      const block = Buffer.alloc(4096, 1);
      try {
        for (;;) fs.writeSync(fd, block);
      } catch {}
      fs.closeSync(fd);
      const done = await runDerun(["run", "--session-id", "full-start", "--", ...COMMAND], { stateRoot: disk.path });
      expectUntouchedRun(done);
      expect(sessionDirs(disk.path).withoutMeta).toEqual([]);
    },
    TIMEOUT,
  );
});
