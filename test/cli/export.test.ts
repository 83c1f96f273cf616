/**
 * `derun export` checked by asciinema itself (Debian's asciinema 2.2, the Python player and
 * parser): `asciinema cat` and `asciinema play` of the exported file, each in a PTY of its own,
 * write exactly the bytes derun recorded, for a PTY session (colour, a resize mid-run, a character
 * split between two writes) and a pipe session (stdout and stderr). The file's own facts (size,
 * times, resize event, exit marker) are checked from its JSON.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { derunEnv, runDerun, sha256, tempDir, text } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { readSession } from "../helpers/session.ts";
import { recordPipe, recordPty, waitUntil } from "../helpers/cli-recordings.ts";

const asciinema = Bun.which("asciinema");
const state = tempDir("derun-cli-export-");
const root = state.path;

beforeAll(async () => {
  // The euro sign's three bytes are written in two writes, a keypress apart: two index records.
  const script =
    `stty -echo; printf '\\033[31mred\\033[0m \\342\\202'; read x; printf '\\254 euro\\n'; read y; printf 'after ` + `resize\\n'; exit 5`;
  const pty = await recordPty(root, "pty", ["sh", "-c", script], {
    cols: 100,
    rows: 30,
    drive: async (run) => {
      await run.waitFor((out) => out.includes("red"), "red");
      run.type("\r");
      await run.waitFor((out) => out.includes("euro"), "euro");
      run.resize(120, 40);
      await waitUntil(
        () => existsSync(join(root, "sessions/pty/events.jsonl")) && statSync(join(root, "sessions/pty/events.jsonl")).size > 0,
        "the resize recorded",
      );
      run.type("\r");
    },
  });
  expect(pty.exitCode).toBe(5);
  await recordPipe(root, "pipe", "printf 'out \\342\\202\\254\\n'; printf 'to stderr\\n' >&2; printf 'done\\n'");
});

async function exported(id: string): Promise<{ file: string; header: any; events: [number, string, string][] }> {
  const file = join(root, `${id}.cast`);
  const done = await runDerun(["export", id, "-o", file], { stateRoot: root });
  expect([done.exitCode, text(done.stderr)]).toEqual([0, `derun: wrote ${id} to ${JSON.stringify(file)} (asciicast v2)\n`]);
  const [header, ...events] = readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  return { file, header, events };
}

/** What an asciinema command writes to a terminal of its own. */
async function asciinemaOutput(...args: string[]): Promise<Uint8Array> {
  const run = spawnInPty([asciinema!, ...args], { env: derunEnv(root, { LANG: "C.UTF-8" }) });
  const { exitCode } = await run.exited;
  expect(exitCode).toBe(0);
  return run.output();
}

describe("derun export --format asciicast", () => {
  test("PTY session: header from meta.json, times from the index, the resize and the exit status", async () => {
    const { header, events } = await exported("pty");
    const session = readSession(root, "pty");
    expect(header).toMatchObject({
      version: 2,
      width: 100,
      height: 30,
      command: `sh -c '${(session.meta.command as string[])[2]!.replaceAll("'", "'\\''")}'`,
      title: "derun pty",
    });
    expect(header.timestamp).toBe(Math.floor(Date.parse(String(session.meta.started_at)) / 1000));
    expect(header.duration).toBeCloseTo(
      (Date.parse(String(session.final!.ended_at)) - Date.parse(String(session.meta.started_at))) / 1000,
      3,
    );
    const times = events.map(([t]) => t);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // No event splits the euro sign, though the index records do.
    const output = events.filter(([, code]) => code === "o").map(([, , data]) => data);
    expect(output.some((data) => data.includes("€ euro"))).toBe(true);
    expect(output.join("")).toBe(text(session.output));
    // The resize lands before the bytes written after it, at its own time.
    const resize = events.findIndex(([, code]) => code === "r");
    expect(events[resize]![2]).toBe("120x40");
    expect(
      events
        .slice(resize + 1)
        .map(([, , data]) => data)
        .join(""),
    ).toContain("after resize");
    expect(
      events
        .slice(0, resize)
        .map(([, , data]) => data)
        .join(""),
    ).not.toContain("after resize");
    expect(events.at(-1)).toEqual([header.duration, "m", "exited 5"]);
  });

  test("pipe session: both streams as output in recorded order, 80x24 when there was no terminal", async () => {
    const { header, events } = await exported("pipe");
    expect([header.width, header.height]).toEqual([80, 24]);
    expect(
      events
        .filter(([, code]) => code === "o")
        .map(([, , data]) => data)
        .join(""),
    ).toBe(text(readSession(root, "pipe").output));
    expect(events.at(-1)![1]).toBe("m");
  });

  test.skipIf(!asciinema)("asciinema cat and asciinema play write exactly the recorded bytes", async () => {
    for (const id of ["pty", "pipe"]) {
      const { file } = await exported(id);
      const recorded = sha256(readSession(root, id).output);
      expect(sha256(await asciinemaOutput("cat", file))).toBe(recorded);
      expect(sha256(await asciinemaOutput("play", "--speed", "20", file))).toBe(recorded);
    }
  });

  test("stdout without -o; a missing session exports nothing", async () => {
    const done = await runDerun(["export", "last"], { stateRoot: root });
    expect(JSON.parse(text(done.stdout).split("\n")[0]!)).toMatchObject({ version: 2, title: "derun pipe" });
    const missing = await runDerun(["export", "nope", "-o", join(root, "nope.cast")], { stateRoot: root });
    expect([missing.exitCode, text(missing.stderr)]).toEqual([1, "derun: session not found: nope\n"]);
    expect(existsSync(join(root, "nope.cast"))).toBe(false);
  });
});
