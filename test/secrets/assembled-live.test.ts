/**
 * A text follower (`derun tail -f`) of a live session whose program puts a secret together over two
 * writes: the cursor saved (`ESC 7`), the second half written further along, and a moment later the
 * cursor restored (`ESC 8`) and the first half put before it. The text view drops the restore, so
 * its line holds the halves apart. The follower holds the open line's bytes back until a later write ends the line
 * (src/transcript/follow.ts), so the pass for secrets the terminal assembles sees both writes: the
 * line comes out with stars where the pieces were. The test writes the second part only once the
 * follower has printed the line written with the first half (the same write), so it has read it.
 */
import { describe, expect, test } from "bun:test";
import { derunArgv, derunEnv, runDerun, tempDir, text } from "../helpers/cli.ts";
import { collect, startLive, waitUntil } from "../helpers/cli-recordings.ts";
import { leakedPieces, randomText } from "../helpers/secrets.ts";

const r = randomText(3891);
const [A, B] = [r(10), r(26)];

describe("a live text follower and a secret put together across two writes", () => {
  test("the line comes out masked, not the half written first", async () => {
    using state = tempDir();
    const live = await startLive(state.path, "live");
    live.write("ready\n");
    const tail = Bun.spawn([...derunArgv(), "tail", "-f", "live"], { env: derunEnv(state.path), stdout: "pipe", stderr: "pipe" });
    const out = collect(tail.stdout);
    await waitUntil(() => text(out.bytes()) === "ready\n", "tail printing the first line");
    // One write: a complete line, then the cursor saved and the second half further along (its line still open).
    live.write(`line two\nkey \x1b7${" ".repeat(14)}${B}`);
    await waitUntil(() => text(out.bytes()).endsWith("line two\n"), "tail printing the line written with the second half");
    live.write(`\x1b8ghp_${A}\ndone\n`);
    await waitUntil(() => text(out.bytes()).includes("done"), "tail printing the line put together");
    live.end();
    expect(await live.exited).toBe(0);
    expect(await tail.exited).toBe(0);
    const shown = text(await out.done);
    expect(leakedPieces(shown, A + B)).toEqual([]);
    expect(shown).toContain("*".repeat(B.length));
    // The recording holds the secret (a clean answer is masking, not a missed plant).
    const raw = text((await runDerun(["cat", "live", "--view", "raw", "--no-redact"], { stateRoot: state.path })).stdout);
    expect(leakedPieces(raw, A + B).length).toBeGreaterThan(0);
  }, 60_000);
});
