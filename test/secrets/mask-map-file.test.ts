/**
 * mask-map.bin (src/transcript/mask-map-file.ts): the mask map `derun grep` and `derun mcp` keep in
 * a session's directory. Made by the first search whatever its pattern, left alone by the next
 * while the session has not grown, extended when it has; and a file that is not one to trust (cut
 * short, another format version, a flipped byte, made under other rules, a symlink, a FIFO,
 * another user's, a hard link) is never used: the search rebuilds the map, which is then the same
 * file a first search makes. Where the file cannot be written, grep still answers, from a map in
 * memory. Real `derun run` sessions, real files, the real CLI.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import { join } from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { randomText } from "../helpers/secrets.ts";
import { derunArgv, derunEnv } from "../helpers/cli.ts";
import { until, untilTrue } from "../helpers/until.ts";
import { connectAgent } from "../helpers/agent.ts";
import { encodeMaskMap, mapKey } from "../../src/transcript/mask-map-file.ts";
import { redactorFor } from "../../src/secrets/redactor.ts";

const TOKEN = `ghp_${randomText(3838)(36)}`;
/** A value only the person's extra rule masks. */
const CUSTOM = "acme-7f3kq9zz1x";
const state = tempDir("derun-maskmap-");
const config = tempDir("derun-maskmap-config-");
const noConfig = tempDir("derun-maskmap-noconfig-");
const dir = join(state.path, "sessions", "m");
const file = join(dir, "mask-map.bin");
/** The file a first search of the session makes. */
let fresh: Uint8Array;

const grep = async (pattern: string, env: Record<string, string> = { XDG_CONFIG_HOME: noConfig.path }, id = "m") => {
  const done = await runDerun(["grep", "-c", "-F", pattern, id], { stateRoot: state.path, env });
  return { status: done.exitCode, out: text(done.stdout), err: text(done.stderr) };
};

/** The map rebuilt after `plant` put something in its place: the same file as a first search makes, a regular file of 0600. */
async function rebuiltAfter(plant: () => void): Promise<void> {
  plant();
  expect(await grep(TOKEN.slice(0, 12))).toEqual({ status: 1, out: "0\n", err: "" });
  const stat = fs.lstatSync(file);
  expect({ file: stat.isFile(), mode: stat.mode & 0o777, links: stat.nlink }).toEqual({ file: true, mode: 0o600, links: 1 });
  expect(Buffer.from(fs.readFileSync(file)).equals(Buffer.from(fresh))).toBe(true);
}

beforeAll(async () => {
  fs.mkdirSync(join(config.path, "derun"));
  fs.writeFileSync(
    join(config.path, "derun", "redact.json"),
    JSON.stringify({ rules: [{ id: "acme", keywords: ["acme-"], pattern: "acme-[a-z0-9]{10}" }] }),
  );
  const script = `for i in $(seq 1 200); do echo "line $i token $P and ${CUSTOM}"; echo "line $i nothing"; done`;
  const run = await runDerun(["run", "--session-id", "m", "--", "sh", "-c", script], { stateRoot: state.path, env: { P: TOKEN } });
  expect(run.exitCode).toBe(0);
  expect(fs.existsSync(file)).toBe(false);
  // The first search makes it, whatever its pattern.
  expect(await grep("nothing")).toEqual({ status: 0, out: "200\n", err: "" });
  fresh = fs.readFileSync(file);
}, 60_000);

afterAll(() => {
  for (const d of [state, config, noConfig]) d[Symbol.dispose]();
});

describe("mask-map.bin", () => {
  test("made once: a regular file of 0600 beside the recording, left alone while the session has not grown", async () => {
    const stat = fs.lstatSync(file);
    expect({ file: stat.isFile(), mode: stat.mode & 0o777 }).toEqual({ file: true, mode: 0o600 });
    // 200 tokens: a header of 96 bytes, then 2-6 bytes a range.
    expect(fresh.length).toBeGreaterThanOrEqual(96 + 200 * 2);
    expect(fresh.length).toBeLessThan(96 + 200 * 7);
    const before = stat.mtimeMs;
    expect(await grep(TOKEN.slice(0, 12))).toEqual({ status: 1, out: "0\n", err: "" });
    expect(await grep("line 7 ")).toEqual({ status: 0, out: "2\n", err: "" });
    expect(fs.lstatSync(file).mtimeMs).toBe(before);
    // The recording is untouched, and the files of the Go original's format are the same ones.
    expect(text(fs.readFileSync(join(dir, "output.bin")))).toContain(TOKEN);
  });

  test("cut short (by one byte, or to a part of its header): rebuilt", async () => {
    await rebuiltAfter(() => fs.writeFileSync(file, fresh.subarray(0, fresh.length - 1)));
    await rebuiltAfter(() => fs.writeFileSync(file, fresh.subarray(0, 40)));
    await rebuiltAfter(() => fs.writeFileSync(file, new Uint8Array(0)));
  });

  test("another format version, a range changed, a covered length past the recording: rebuilt", async () => {
    const edited = (at: number, value: number) => () => {
      const bytes = Uint8Array.from(fresh);
      bytes[at] = value;
      fs.writeFileSync(file, bytes);
    };
    await rebuiltAfter(edited(8, 2)); // the format version
    await rebuiltAfter(edited(fresh.length - 1, (fresh[fresh.length - 1]! + 1) & 0x7f)); // the last range's length
    await rebuiltAfter(edited(96, 0)); // the first range moved to byte 0
    await rebuiltAfter(edited(55, 0x7f)); // covered: a huge number
  });

  test("made under other rules (the person's redact.json): not used, made again under the rules in force", async () => {
    const withRule = { XDG_CONFIG_HOME: config.path };
    expect(await grep(CUSTOM, withRule)).toEqual({ status: 1, out: "0\n", err: "" });
    const custom = fs.readFileSync(file);
    // The extra rule's 200 ranges are in it: a different, longer map.
    expect(custom.length).toBeGreaterThan(fresh.length);
    // Back to the built-in rules: the person's value is found again, from a map made without that rule.
    expect(await grep(CUSTOM)).toEqual({ status: 0, out: "200\n", err: "" });
    expect(Buffer.from(fs.readFileSync(file)).equals(Buffer.from(fresh))).toBe(true);
  });

  test("a symlink (to output.bin, or to a valid map kept elsewhere) is not followed, and is replaced", async () => {
    const elsewhere = join(config.path, "copy.bin");
    fs.writeFileSync(elsewhere, fresh);
    await rebuiltAfter(() => {
      fs.rmSync(file);
      fs.symlinkSync(elsewhere, file);
    });
    expect(Buffer.from(fs.readFileSync(elsewhere)).equals(Buffer.from(fresh))).toBe(true);
    const recording = fs.readFileSync(join(dir, "output.bin"));
    await rebuiltAfter(() => {
      fs.rmSync(file);
      fs.symlinkSync("output.bin", file);
    });
    expect(Buffer.from(fs.readFileSync(join(dir, "output.bin"))).equals(recording)).toBe(true);
  });

  test("a FIFO, another user's file, a file with a second name: not read, replaced", async () => {
    await rebuiltAfter(() => {
      fs.rmSync(file);
      Bun.spawnSync(["mkfifo", file]);
      expect(fs.lstatSync(file).isFIFO()).toBe(true);
    });
    if (process.getuid?.() === 0)
      await rebuiltAfter(() => {
        fs.writeFileSync(file, fresh);
        fs.chownSync(file, 4242, 4242);
      });
    const other = join(dir, "other-name");
    await rebuiltAfter(() => {
      fs.writeFileSync(file, fresh);
      fs.linkSync(file, other);
    });
    fs.rmSync(other);
  });

  test("a map that says the session has more ranges than a map keeps: searched without one, every line masked", async () => {
    // A token the terminal assembles: its second half drawn first at column 24, then `ghp_` and its
    // first half at column 10. Only the assembled pass masks it, and search skips that pass when it
    // reads through a map. A map of more ranges than it holds is written with none (flag 1) and the
    // bytes it got to; read back, it must not pass for a map of that range that masks nothing.
    const [a, b] = [randomText(3839)(10), randomText(3840)(26)];
    const script = 'printf \'\\033[5;24H%s\\033[5;10Hghp_%s\\033[7;1Hdone\\n\' "$B" "$A"';
    const run = await runDerun(["run", "--session-id", "p", "--", "sh", "-c", script], { stateRoot: state.path, env: { A: a, B: b } });
    expect(run.exitCode).toBe(0);
    const pDir = join(state.path, "sessions", "p");
    const masked = await grep("done", undefined, "p");
    expect(masked).toEqual({ status: 0, out: "1\n", err: "" });
    const shown = async () =>
      text((await runDerun(["grep", "-F", "done", "p"], { stateRoot: state.path, env: { XDG_CONFIG_HOME: noConfig.path } })).stdout);
    const before = await shown();
    expect(before).toContain("*".repeat(40));
    const meta = JSON.parse(text(fs.readFileSync(join(pDir, "meta.json"))));
    // The file derun writes for such a session (the built-in rules, as the grep below reads).
    const key = mapKey(redactorFor(meta).key!, "p", meta.started_at);
    const covered = fs.statSync(join(pDir, "output.bin")).size;
    fs.writeFileSync(join(pDir, "mask-map.bin"), encodeMaskMap({ ranges: new Uint8Array(0), count: 0, covered, full: true }, key), {
      mode: 0o600,
    });
    const after = await shown();
    expect(after).not.toContain(b);
    expect(after).toBe(before);
  });

  test.skipIf(process.platform !== "linux")(
    "a session trimmed past max_session: its map begins at its kept bytes, and masks them",
    async () => {
      // 6 MB of lines under a 2 MB cap: the bytes before about 4 MB are gone (more than the 1 MiB the
      // map reads at once), then a token the terminal assembles (see the test above).
      const [a, b] = [randomText(3841)(10), randomText(3842)(26)];
      const trimConfig = join(config.path, "trim");
      fs.mkdirSync(join(trimConfig, "derun"), { recursive: true });
      const storage = { max_session: "2MB", max_total: "1GB", keep_free: "0%" };
      fs.writeFileSync(join(trimConfig, "derun", "config.json"), JSON.stringify({ storage }), { mode: 0o600 });
      const positioned = 'printf \'\\033[5;24H%s\\033[5;10Hghp_%s\\033[7;1Hdone\\n\' "$B" "$A"';
      const script = `yes ${"x".repeat(70)} | head -c 6000000; ${positioned}`;
      const env = { A: a, B: b, XDG_CONFIG_HOME: trimConfig };
      const run = await runDerun(["run", "--session-id", "t", "--", "sh", "-c", script], { stateRoot: state.path, env });
      expect(run.exitCode).toBe(0);
      const tDir = join(state.path, "sessions", "t");
      expect(JSON.parse(text(fs.readFileSync(join(tDir, "trim.json")))).kept_from).toBeGreaterThan(1 << 20);
      const grepped = text(
        (await runDerun(["grep", "-F", "done", "t"], { stateRoot: state.path, env: { XDG_CONFIG_HOME: noConfig.path } })).stdout,
      );
      expect(grepped).not.toContain(b);
      expect(grepped).toContain(`${"*".repeat(40)}done`);
      // The map on disk holds the token's ranges (it said none: every later grep showed it too).
      const map = fs.readFileSync(join(tDir, "mask-map.bin"));
      expect(new DataView(map.buffer, map.byteOffset).getUint32(56, true)).toBeGreaterThan(0);
    },
  );

  test("a session whose derun died: a grep that makes its map moves neither its last sign of life nor its expiry", async () => {
    const cDir = join(state.path, "sessions", "c");
    const run = Bun.spawn([...derunArgv(), "run", "--session-id", "c", "--", "sh", "-c", 'echo "token $P"; exec sleep 60'], {
      env: derunEnv(state.path, { P: TOKEN }),
      stdout: "ignore",
      stderr: "ignore",
    });
    const child = await until("the command started", () => {
      const meta = fs.existsSync(join(cDir, "meta.json")) ? JSON.parse(text(fs.readFileSync(join(cDir, "meta.json")))) : undefined;
      return meta?.pid > 0 && fs.existsSync(join(cDir, "index.jsonl")) && fs.statSync(join(cDir, "index.jsonl")).size > 0
        ? meta.pid
        : undefined;
    });
    run.kill("SIGKILL");
    await run.exited;
    process.kill(child, "SIGKILL");
    const show = async () => JSON.parse(text((await runDerun(["show", "--json", "c"], { stateRoot: state.path })).stdout)).session;
    const died = await show();
    expect(died.state).toBe("failed");
    // Later than the recorder's last touch by more than a clock tick: a file made now would be seen.
    const last = Date.parse(died.expires_at) - died.retention_seconds * 1000;
    await untilTrue("the clock past the last sign of life", () => Date.now() > last + 50);
    expect(await grep(TOKEN.slice(0, 12), undefined, "c")).toEqual({ status: 1, out: "0\n", err: "" });
    expect(fs.existsSync(join(cDir, "mask-map.bin"))).toBe(true);
    expect(await show()).toEqual(died);
  });

  test("a temporary file left by a reader killed while writing the map: removed by the next one that writes it", async () => {
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    const orphan = join(dir, `.mask-map.bin.${gone.pid}.1.tmp`);
    // One of a process still alive (this one) is being written: left.
    const writing = join(dir, `.mask-map.bin.${process.pid}.7.tmp`);
    try {
      await rebuiltAfter(() => {
        fs.rmSync(file);
        fs.writeFileSync(orphan, fresh.subarray(0, 50));
        fs.writeFileSync(writing, fresh.subarray(0, 50));
      });
      expect(fs.existsSync(orphan)).toBe(false);
      expect(fs.existsSync(writing)).toBe(true);
    } finally {
      fs.rmSync(orphan, { force: true });
      fs.rmSync(writing, { force: true });
    }
  });

  test("where it cannot be written, grep answers the same from a map in memory", async () => {
    fs.rmSync(file);
    // A directory in its place: the new file cannot be renamed over it.
    fs.mkdirSync(join(file, "in-the-way"), { recursive: true });
    try {
      expect(await grep(TOKEN.slice(0, 12))).toEqual({ status: 1, out: "0\n", err: "" });
      expect(await grep("nothing")).toEqual({ status: 0, out: "200\n", err: "" });
      expect(fs.readdirSync(dir).filter((name) => name.includes("mask-map"))).toEqual(["mask-map.bin"]);
    } finally {
      fs.rmSync(file, { recursive: true });
    }
  });

  test("a growing session: the map covers what was there, and is extended by what was written since", async () => {
    const live = join(state.path, "sessions", "g");
    const [go1, go2] = [join(config.path, "go1"), join(config.path, "go2")];
    const wait = (file: string) => `while [ ! -e ${file} ]; do sleep 0.05; done`;
    const script = `echo "first $P"; ${wait(go1)}; echo "middle $P"; ${wait(go2)}; echo "second $P"`;
    const run = Bun.spawn([...derunArgv(), "run", "--session-id", "g", "--", "sh", "-c", script], {
      env: derunEnv(state.path, { P: TOKEN }),
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const output = join(live, "output.bin");
      const index = join(live, "index.jsonl");
      const indexed = (lines: number) => () => fs.existsSync(index) && text(fs.readFileSync(index)).split("\n").length > lines;
      await untilTrue("the first line indexed", indexed(1));
      // No live hold (docs/secrets.md): the search covers every byte committed so far.
      const now = { XDG_CONFIG_HOME: noConfig.path, DERUN_LIVE_HOLD_MS: "0" };
      expect(await grep(TOKEN.slice(0, 12), now, "g")).toEqual({ status: 1, out: "0\n", err: "" });
      const first = fs.readFileSync(join(live, "mask-map.bin"));
      const covered = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset).getFloat64(48, true);
      expect(covered(first)).toBe(fs.statSync(output).size);
      // Live and grown by less than 1 MiB: searched through the map, extended in memory, not written again.
      fs.writeFileSync(go1, "");
      await untilTrue("the second line indexed", indexed(2));
      expect(await grep("middle", now, "g")).toEqual({ status: 0, out: "1\n", err: "" });
      expect(await grep(TOKEN.slice(0, 12), now, "g")).toEqual({ status: 1, out: "0\n", err: "" });
      expect(Buffer.from(fs.readFileSync(join(live, "mask-map.bin"))).equals(Buffer.from(first))).toBe(true);
      // Ended: written whole.
      fs.writeFileSync(go2, "");
      expect(await run.exited).toBe(0);
      expect(await grep("second", undefined, "g")).toEqual({ status: 0, out: "1\n", err: "" });
      expect(await grep(TOKEN.slice(0, 12), undefined, "g")).toEqual({ status: 1, out: "0\n", err: "" });
      const grown = fs.readFileSync(join(live, "mask-map.bin"));
      expect(covered(grown)).toBe(fs.statSync(output).size);
      // Three ranges now (a token on each line), where the first map had one.
      expect(grown.length).toBeGreaterThan(first.length);
    } finally {
      run.kill();
      await run.exited;
    }
  }, 30_000);

  test("derun mcp reads the map grep made, and makes one for a session that has none", async () => {
    await rebuiltAfter(() => {});
    const made = fs.lstatSync(file).mtimeMs;
    await using agent = await connectAgent(state.path, undefined, { XDG_CONFIG_HOME: noConfig.path });
    const search = async (id: string) =>
      (await agent.call("derun_search_output", { session_id: id, pattern: TOKEN.slice(0, 12), literal: true })).text.split("\n")[0];
    expect(await search("m")).toContain(": 0 matching lines");
    expect(fs.lstatSync(file).mtimeMs).toBe(made);
    const other = join(state.path, "sessions", "g", "mask-map.bin");
    fs.rmSync(other);
    expect(await search("g")).toContain(": 0 matching lines");
    expect(fs.lstatSync(other).isFile()).toBe(true);
  });
});
