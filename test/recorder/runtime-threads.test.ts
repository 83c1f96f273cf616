/**
 * While a command runs, the runtime's background threads in derun (the JIT's compiler threads, the
 * heap's block warm-up, the allocator's scavenger) run at idle priority, so their bursts never hold
 * up a thread on the path of the command's bytes (recorder/runtime-threads.ts); derun's own threads
 * and the command keep the normal policy.
 */
import { describe, expect, test } from "bun:test";
import { BACKGROUND_THREADS } from "../../src/recorder/runtime-threads.ts";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { threadPolicies } from "../helpers/threads.ts";

const SCHED_OTHER = 0;
const SCHED_IDLE = 5;

describe.skipIf(process.platform !== "linux")("the runtime's background threads", () => {
  test("run at idle priority while a command runs; derun's own threads and the command do not", async () => {
    using state = tempDir();
    const derun = Bun.spawn([...derunArgv(), "run", "--", "sh", "-c", "echo started; exec sleep 60"], {
      env: derunEnv(state.path),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const reader = derun.stdout.getReader();
      const { value } = await reader.read();
      expect(new TextDecoder().decode(value)).toContain("started");
      // The runtime starts them when first needed (a compiler thread at the first hot function);
      // derun looks for them again a few times early in the run: wait until all are there, idle.
      let threads = threadPolicies(derun.pid);
      const settled = () => {
        threads = threadPolicies(derun.pid);
        const background = threads.filter((t) => BACKGROUND_THREADS.has(t.name));
        const named = new Set(background.map((t) => t.name));
        return named.size === BACKGROUND_THREADS.size && background.every((t) => t.policy === SCHED_IDLE);
      };
      for (let i = 0; i < 1000 && !settled(); i++) await Bun.sleep(10);
      const byName = threads.map((t) => `${t.name}:${t.policy}`).join(" ");
      // Every name derun looks for is one this runtime gives (a Bun upgrade that renames one shows here).
      for (const name of BACKGROUND_THREADS) expect(byName).toContain(`${name}:${SCHED_IDLE}`);
      for (const thread of threads.filter((t) => !BACKGROUND_THREADS.has(t.name))) {
        expect(`${thread.name}:${thread.policy}`).toBe(`${thread.name}:${SCHED_OTHER}`);
      }
      const command = Number((await Bun.$`pgrep -P ${derun.pid} -x sleep`.nothrow().text()).trim());
      expect(threadPolicies(command).map((t) => t.policy)).toEqual([SCHED_OTHER]);
    } finally {
      derun.kill("SIGTERM");
      await derun.exited;
    }
  });
});
