/**
 * `cat` and `tail` in the text and screen views, on sessions recorded by real `derun run` processes:
 * a spinner and progress bar and full-screen programs (top killed while on screen, less killed on
 * its alternate screen, less quit) on a PTY, long pipe sessions. What they print is what
 * derun_read_text answers through the SDK's own client, line for line; a tail is the last lines of
 * the whole view; a transcript larger than the render window says where the screen starts; cat and
 * grep of a large session stream (their memory does not grow with the transcript).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as path from "node:path";
import { derunArgv, derunEnv, runDerun, tempDir, text } from "../helpers/cli.ts";
import { childPid, connectAgent, recordInPty, recordWithPipes } from "../helpers/agent.ts";
import { document, spinnerScript } from "../helpers/agent-programs.ts";

const state = tempDir("derun-cli-views-");
const work = tempDir("derun-cli-views-work-");
const root = state.path;
const derun = (...args: string[]) => runDerun(args, { stateRoot: root });
const count = (s: string, part: string) => s.split(part).length - 1;
const linesOf = (bytes: Uint8Array) => text(bytes).split("\n").slice(0, -1);

// Real programs, recorded one after the other: more than Bun's 5 s on a loaded machine.
beforeAll(async () => {
  const doc = document(path.join(work.path, "doc.txt"), 2000);
  await recordInPty(root, "progress", ["python3", "-c", spinnerScript]);
  await recordInPty(root, "top", ["top", "-d", "0.1"], {
    drive: async (run) => {
      await run.waitFor((o) => count(o, "top - ") >= 5, "five frames of top");
      process.kill(childPid(root, "top"), "SIGKILL");
    },
  });
  const page = (n: number) => (o: string) => o.includes(`line ${n * 29} of`);
  await recordInPty(root, "less-killed", ["less", doc], {
    drive: async (run) => {
      for (let n = 1; n <= 5; n++) {
        await run.waitFor(page(n), `page ${n}`);
        if (n < 5) run.type(" ");
      }
      process.kill(childPid(root, "less-killed"), "SIGKILL");
    },
  });
  await recordInPty(root, "less", ["less", doc], {
    drive: async (run) => {
      for (let n = 1; n <= 5; n++) {
        await run.waitFor(page(n), `page ${n}`);
        run.type(n < 5 ? " " : "q");
      }
    },
  });
  // 2.1 MB: lines cross the 1 MiB read blocks; the last one has no LF.
  await recordWithPipes(root, "long", ["sh", "-c", "seq 1 300000; printf 'open end'"]);
  // 7.9 MB: more than the 4 MiB the screen renders.
  await recordInPty(root, "big", ["seq", "1", "1000000"]);
}, 120_000);

afterAll(() => {
  state[Symbol.dispose]();
  work[Symbol.dispose]();
});

/** derun_read_text's lines (the answer's text without its header), all of them. */
async function readTextLines(args: Record<string, unknown>): Promise<string[]> {
  await using agent = await connectAgent(root);
  const answer = await agent.call("derun_read_text", { head_lines: 100_000, max_chars: 200_000, ...args });
  expect(answer.isError).toBe(false);
  return answer.text.split("\n").slice(1);
}

describe("cat --view text and --view screen", () => {
  test("a spinner and a progress bar: their final state only, in both views, as derun_read_text has them", async () => {
    const final = ["fetching index... done", `building 40/40 [${"#".repeat(40)}] done`];
    for (const view of ["text", "screen"]) {
      const cat = await derun("cat", "progress", "--view", view);
      expect([cat.exitCode, linesOf(cat.stdout), text(cat.stderr)]).toEqual([0, final, ""]);
      expect(linesOf(cat.stdout)).toEqual(await readTextLines({ session_id: "progress", view }));
    }
    expect(linesOf((await derun("cat", "progress")).stdout)).toEqual(final); // text is the default
  }, 60_000);

  test("a full-screen program: the screen is its last frame, or, once it has left its alternate screen, nothing of it", async () => {
    const top = await derun("cat", "top", "--view", "screen");
    expect(count(text(top.stdout), "top - ")).toBe(1);
    expect(linesOf(top.stdout)[0]).toMatch(/^top - \d\d:\d\d:\d\d up /);
    expect(linesOf(top.stdout)).toEqual(await readTextLines({ session_id: "top", view: "screen" }));

    const killed = linesOf((await derun("cat", "less-killed", "--view", "screen")).stdout);
    expect(killed[0]).toBe("line 117 of a document paged with less");
    expect(killed.filter((line) => line.startsWith("line "))).toEqual(
      Array.from({ length: 29 }, (_, i) => `line ${117 + i} of a document paged with less`),
    );
    expect(killed).toEqual(await readTextLines({ session_id: "less-killed", view: "screen" }));
    // The text view has every line less drew, each once: paging adds lines, it does not redraw them.
    const paged = linesOf((await derun("cat", "less-killed")).stdout).filter((line) => line.startsWith("line "));
    expect(paged).toEqual(Array.from({ length: 145 }, (_, i) => `line ${i + 1} of a document paged with less`));

    const quit = await derun("cat", "less", "--view", "screen");
    expect([quit.exitCode, text(quit.stdout)]).toEqual([0, ""]);
    expect(text((await derun("cat", "less")).stdout)).toContain("line 145 of a document paged with less\n");
  }, 60_000);

  test("long sessions: the text view whole, its open last line included; the screen says from which byte it rendered", async () => {
    const long = await derun("cat", "long");
    expect(text(long.stdout)).toBe(`${Array.from({ length: 300_000 }, (_, i) => i + 1).join("\n")}\nopen end\n`);
    const big = await derun("cat", "big", "--view", "screen");
    expect(big.exitCode).toBe(0);
    expect(text(big.stderr)).toMatch(/^derun: the screen is rendered from byte \d+ of 7888896: what came before is not drawn\n$/);
    expect(linesOf(big.stdout).at(-1)).toBe("1000000");
    expect(linesOf(big.stdout)).toEqual(await readTextLines({ session_id: "big", view: "screen" }));
  }, 60_000);
});

describe("tail -n in the text and screen views", () => {
  test("the last N lines of the view are the last N of the whole view (across read blocks, an open last line, every session)", async () => {
    for (const id of ["long", "progress", "less-killed", "top"]) {
      const whole = linesOf((await derun("cat", id)).stdout);
      for (const n of [1, 7, 29, 150_000, 400_000]) {
        const tail = await derun("tail", "-n", String(n), id);
        expect([tail.exitCode, linesOf(tail.stdout)]).toEqual([0, whole.slice(-n)]);
      }
    }
    expect(linesOf((await derun("tail", "long")).stdout)).toEqual([
      "299992",
      "299993",
      "299994",
      "299995",
      "299996",
      "299997",
      "299998",
      "299999",
      "300000",
      "open end",
    ]);
  }, 120_000); // two dozen derun processes

  test("--view screen: the bottom of the final screen; -f with it is refused", async () => {
    const screen = linesOf((await derun("cat", "less-killed", "--view", "screen")).stdout);
    expect(linesOf((await derun("tail", "-n", "3", "--view", "screen", "less-killed")).stdout)).toEqual(screen.slice(-3));
    const refused = await derun("tail", "-f", "--view", "screen", "less-killed");
    expect([refused.exitCode, text(refused.stderr).split("\n")[0]]).toEqual([
      2,
      "derun: -f follows --view text or raw (a screen is the state at the end)",
    ]);
  }, 60_000);
});

describe("cat and grep stream the text view", () => {
  const line = "GET /api/items 200 0.004s user=alice agent=derun-test request-id=0123456789abcdef";
  const record = (id: string, lines: number) =>
    recordWithPipes(root, id, ["python3", "-c", `import sys\nw = sys.stdout.write\nfor i in range(${lines}): w("%d ${line}\\n" % i)\n`]);

  /** Peak resident memory of `derun <args>`, its stdout counted as it comes (lines, and its end), not kept. */
  async function peakOf(...args: string[]): Promise<{ exitCode: number; lines: number; end: string; peak: number }> {
    const proc = Bun.spawn([...derunArgv(), ...args], { env: derunEnv(root), stdout: "pipe", stderr: "pipe" });
    let [lines, end] = [0, ""];
    const decoder = new TextDecoder();
    for await (const part of proc.stdout) {
      const chunk = decoder.decode(part, { stream: true });
      lines += count(chunk, "\n");
      end = (end + chunk).slice(-200);
    }
    const exitCode = await proc.exited;
    return { exitCode, lines, end, peak: proc.resourceUsage()!.maxRSS };
  }

  test("23 MB and 230 MB of output: every line printed, in memory that does not grow with the transcript", async () => {
    await record("small", 250_000);
    await record("large", 2_500_000);
    const small = await peakOf("cat", "small");
    const large = await peakOf("cat", "large");
    expect([large.exitCode, large.lines]).toEqual([0, 2_500_000]);
    expect(large.end.endsWith(`2499999 ${line}\n`)).toBe(true);
    // A cat that held the transcript (or its lines) would need 230 MB more than for the small one.
    // The bound leaves room for garbage the collector has not reached yet: on a loaded machine its
    // thread lags (grep measured 116 MiB over the small cat there, 46 MiB on a quiet one).
    const BOUND = 160 * 1024 * 1024;
    expect(large.peak - small.peak).toBeLessThan(BOUND);
    const search = await peakOf("grep", "request-id=x", "large");
    expect(search.exitCode).toBe(1);
    expect(search.peak - small.peak).toBeLessThan(BOUND);
  }, 180_000);
});
