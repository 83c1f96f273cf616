/**
 * `derun export --format asciicast-v3` checked by asciinema's own player (asciinema-player from the
 * npm registry, its Core: the parser and playback clock its web player runs, without a page): a
 * `derun shell` session with two commands typed into bash plays back as exactly the recorded
 * output, with one marker per command carrying its command line; a PTY session with a resize gives
 * the `r` event; the exit status is the last event, `x`. Intervals are relative in v3: they add up
 * to the v2 export's times.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Glob } from "bun";
import { REPO_ROOT, runDerun, tempDir, text } from "../helpers/cli.ts";
import { readSession } from "../helpers/session.ts";
import { shellHome, startShell } from "../helpers/shells.ts";
import { recordPipe, recordPty, waitUntil } from "../helpers/cli-recordings.ts";

const state = tempDir("derun-cli-export-v3-");
const root = state.path;
const bash = Bun.which("bash");

type Event = [number, string, string];

// asciinema-player's package exports only the page-mounting `create`; its Core (the parser and the
// playback clock, no page) is what `create` mounts, in a chunk whose name carries a content hash.
const playerDir = join(REPO_ROOT, "node_modules/asciinema-player/dist");
const coreChunk = [...new Glob("core-*.js").scanSync(playerDir)];
expect(coreChunk).toHaveLength(1);
const { C: Core } = await import(join(playerDir, coreChunk[0]!));

async function exported(id: string, format: string): Promise<{ file: string; header: any; events: Event[] }> {
  const file = join(root, `${id}.${format}.cast`);
  const done = await runDerun(["export", id, "--format", format, "-o", file], { stateRoot: root });
  expect(done.exitCode).toBe(0);
  const [header, ...events] = readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  return { file, header, events };
}

interface Played {
  readonly metadata: { duration: number; markers: [number, string][] };
  readonly output: string;
  readonly markers: string[];
  readonly resizes: { cols: number; rows: number }[];
}

/** The file as asciinema's player plays it, at 1000x speed, until its `ended` event. */
async function play(file: string): Promise<Played> {
  const url = `data:text/plain;base64,${readFileSync(file).toString("base64")}`;
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  const core = new Core({ url }, { logger: quiet, speed: 1000, preload: true, autoPlay: false, startAt: 0 });
  const played = { metadata: undefined as any, output: "", markers: [] as string[], resizes: [] as { cols: number; rows: number }[] };
  const ended = new Promise<void>((resolve, reject) => {
    core.addEventListener("ended", () => resolve());
    core.addEventListener("error", (e: unknown) => reject(new Error(`player error: ${JSON.stringify(e)}`)));
  });
  core.addEventListener("metadata", (m: any) => (played.metadata = m));
  core.addEventListener("output", (data: string[]) => (played.output += data.join("")));
  core.addEventListener("marker", (m: any) => played.markers.push(m.label));
  core.addEventListener("resize", (size: any) => played.resizes.push(size));
  core.terminalReady();
  await core.init();
  await core.play();
  await ended;
  return played;
}

beforeAll(async () => {
  await recordPipe(root, "pipe", "printf 'out\\n'; printf 'err\\n' >&2; exit 4", 4);
  const pty = await recordPty(root, "pty", ["sh", "-c", "stty -echo; printf 'before\\n'; read x; printf 'after resize\\n'"], {
    cols: 90,
    rows: 20,
    drive: async (run) => {
      await run.waitFor((out) => out.includes("before"), "before");
      run.resize(110, 33);
      const events = join(root, "sessions/pty/events.jsonl");
      await waitUntil(() => existsSync(events) && statSync(events).size > 0, "the resize recorded");
      run.type("\r");
    },
  });
  expect(pty.exitCode).toBe(0);
});

afterAll(() => state[Symbol.dispose]());

describe("derun export --format asciicast-v3", () => {
  test("pipe session: v3 header, relative intervals that add up to v2's times, the exit status as x", async () => {
    const v3 = await exported("pipe", "asciicast-v3");
    const v2 = await exported("pipe", "asciicast-v2");
    expect(v3.header).toMatchObject({ version: 3, term: { cols: 80, rows: 24 }, title: "derun pipe" });
    expect(v3.header.width).toBeUndefined();
    expect(v3.events.at(-1)!.slice(1)).toEqual(["x", "4"]);
    expect(v3.events.every(([interval]) => interval >= 0)).toBe(true);
    // Event by event, the sum of v3's intervals is v2's time (v2's last event is its exit marker).
    let sum = 0;
    const times = v3.events.map(([interval]) => (sum = Math.round((sum + interval) * 1000) / 1000));
    expect(times).toEqual(v2.events.map(([t]) => t));
    const played = await play(v3.file);
    expect(played.output).toBe(text(readSession(root, "pipe").output));
    expect(played.metadata.duration).toBeCloseTo(sum, 3);
  });

  test("PTY session: the resize as r, played where it was recorded", async () => {
    const { file, header, events } = await exported("pty", "asciicast-v3");
    expect(header.term).toEqual({ cols: 90, rows: 20 });
    const resize = events.findIndex(([, code]) => code === "r");
    expect(events[resize]![2]).toBe("110x33");
    expect(
      events
        .slice(resize + 1)
        .map(([, , data]) => data)
        .join(""),
    ).toContain("after resize");
    const played = await play(file);
    expect(played.resizes).toEqual([{ cols: 110, rows: 33 }]);
    expect(played.output).toBe(text(readSession(root, "pty").output));
    expect(events.at(-1)!.slice(1)).toEqual(["x", "0"]);
  });

  test.skipIf(!bash)("derun shell session: a marker at each command, with its command line", async () => {
    using home = shellHome("bash");
    {
      await using shell = startShell("bash", home, { withMarks: true, viaDerun: { stateRoot: root, sessionId: "sh" } });
      await shell.prompts(1);
      shell.type("echo first\r");
      await shell.prompts(2);
      shell.type("sh -c 'echo second; exit 3'\r");
      await shell.prompts(3);
      await shell.exit();
    }
    const { file, events } = await exported("sh", "asciicast-v3");
    const markers = events.filter(([, code]) => code === "m").map(([, , label]) => label);
    expect(markers).toEqual(["echo first", "sh -c 'echo second; exit 3'", "exit"]);
    // Each marker comes before its command's output.
    const at = (label: string) => events.findIndex(([, code, data]) => code === "m" && data === label);
    const outputAfter = (i: number) =>
      events
        .slice(i + 1)
        .filter(([, code]) => code === "o")
        .map(([, , d]) => d)
        .join("");
    expect(outputAfter(at("echo first"))).toContain("first");
    expect(outputAfter(at("sh -c 'echo second; exit 3'"))).not.toContain("\r\nfirst");
    const played = await play(file);
    expect(played.markers).toEqual(markers);
    expect(played.metadata.markers.map(([, label]) => label)).toEqual(markers);
    expect(played.output).toBe(text(readSession(root, "sh").output));
    // bash's `exit` exits with the last command's status.
    expect(events.at(-1)!.slice(1)).toEqual(["x", "3"]);
    // The v2 export of the same session keeps its old shape: no command markers, an exit marker.
    const v2 = await exported("sh", "asciicast");
    expect(v2.events.filter(([, code]) => code === "m").map(([, , label]) => label)).toEqual(["exited 3"]);
  });
});
