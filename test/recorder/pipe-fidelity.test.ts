/**
 * In pipe mode the child's stdout and stderr are what they would be without derun: real pipes
 * (opening /dev/stdout or /dev/stderr works), and a reader going away reaches the child as EPIPE
 * or SIGPIPE, whichever it chose, with the same exit status. Through the real CLI.
 *
 * Every writer here is bounded (a loop count, `head -c`, `timeout`), so a regression fails the
 * test instead of writing for ever into derun's recording.
 */
import { describe, expect, test } from "bun:test";
import { derunEnv, derunShell, runDerun, shellQuote, tempDir, text } from "../helpers/cli.ts";
import { channelBytes, onlySession } from "../helpers/session.ts";

const DERUN = derunShell();

/**
 * Runs `script` in bash with `$DERUN` replaced by the derun command line, then the same script
 * without it (the command alone), and returns both outputs (stdout, then stderr) for comparison.
 */
async function withAndWithout(script: string, stateRoot: string): Promise<{ derun: string; alone: string }> {
  const run = async (derun: string) => {
    const proc = Bun.spawn(["bash", "-c", script.replaceAll("$DERUN", derun)], {
      env: derunEnv(stateRoot),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return out + err;
  };
  return { derun: await run(`${DERUN} run --`), alone: await run("") };
}

describe("pipe mode: the child's stdout and stderr are real pipes", () => {
  test("echo x > /dev/stderr and > /dev/stdout work and are recorded on their own channels", async () => {
    using state = tempDir();
    const result = await runDerun(["run", "--", "sh", "-c", "echo to-err > /dev/stderr && echo to-out > /dev/stdout"], {
      stateRoot: state.path,
    });
    expect(text(result.stderr)).toBe("to-err\n");
    expect(text(result.stdout)).toBe("to-out\n");
    expect(result.exitCode).toBe(0);
    const session = onlySession(state.path);
    expect(text(channelBytes(session, "stdout"))).toBe("to-out\n");
    expect(text(channelBytes(session, "stderr"))).toBe("to-err\n");
  });

  test("tee /dev/stderr copies its input to both streams", async () => {
    using state = tempDir();
    const result = await runDerun(["run", "--", "sh", "-c", "echo both | tee /dev/stderr"], { stateRoot: state.path });
    expect(result.exitCode).toBe(0);
    expect(text(result.stdout)).toBe("both\n");
    expect(text(result.stderr)).toBe("both\n");
  });

  test("fd 1 and fd 2 of the child are FIFOs (test -p), not sockets", async () => {
    using state = tempDir();
    const result = await runDerun(
      ["run", "--", "sh", "-c", "for fd in 1 2; do test -p /dev/fd/$fd && echo pipe$fd; test -S /dev/fd/$fd && echo socket$fd; done; :"],
      { stateRoot: state.path },
    );
    expect(text(result.stdout)).toBe("pipe1\npipe2\n");
  });
});

describe("pipe mode: a reader that goes away reaches the child", () => {
  test("derun run -- yes | head -1: derun dies of SIGPIPE as yes does, and the pipeline's status is the same", async () => {
    using state = tempDir();
    // `timeout -s KILL` only bounds a regression: it would turn the status into 137.
    const { derun, alone } = await withAndWithout(
      'set -o pipefail; timeout -s KILL 20 $DERUN yes | head -1; echo "status=$? ${PIPESTATUS[*]}"',
      state.path,
    );
    expect(alone).toBe("y\nstatus=141 141 0\n");
    expect(derun).toBe(alone);
  });

  test("a shell that ignores SIGPIPE gets EPIPE from echo and exits as it would without derun", async () => {
    using state = tempDir();
    // 3 means echo failed (EPIPE); 4 means all 200000 lines were written: the pipe never broke.
    const writer = `sh -c 'trap "" PIPE; i=0; while [ $i -lt 200000 ]; do echo y || exit 3; i=$((i+1)); done; exit 4'`;
    const { derun, alone } = await withAndWithout(`$DERUN ${writer} 2>/dev/null | head -1; echo "status=\${PIPESTATUS[0]}"`, state.path);
    expect(alone).toBe("y\nstatus=3\n");
    expect(derun).toBe(alone);
  });

  test("python ignoring SIGPIPE gets BrokenPipeError on stdout, with the same status and message", async () => {
    using state = tempDir();
    // At most 20 MB if the pipe never breaks (status 0 then).
    const program = [
      "import signal, sys",
      "signal.signal(signal.SIGPIPE, signal.SIG_IGN)",
      "try:",
      "    for _ in range(200000): sys.stdout.write('x' * 99 + '\\n')",
      "    sys.stdout.flush()",
      "except BrokenPipeError:",
      "    sys.stderr.write('broken pipe\\n'); sys.stderr.flush(); sys.stdout = None; sys.exit(5)",
    ].join("\n");
    const { derun, alone } = await withAndWithout(
      `$DERUN python3 -c ${shellQuote(program)} | head -c 10 >/dev/null; echo "status=\${PIPESTATUS[0]}"`,
      state.path,
    );
    expect(alone).toBe("status=5\nbroken pipe\n");
    expect(derun).toBe(alone);
  });

  test("stdout closed early: stderr written afterwards is still forwarded and recorded, and derun ends", async () => {
    using state = tempDir();
    const writer =
      `sh -c 'trap "" PIPE; i=0; while [ $i -lt 200000 ]; do echo y 2>/dev/null || break; i=$((i+1)); done; echo ` +
      `"after $i" >&2; exit 7'`;
    const { derun } = await withAndWithout(`$DERUN ${writer} | head -1 >/dev/null; echo "status=\${PIPESTATUS[0]}"`, state.path);
    expect(derun).toMatch(/^status=7\nafter \d+\n$/);
    expect(derun).not.toContain("after 200000");
    const session = onlySession(state.path);
    expect(text(channelBytes(session, "stderr"))).toMatch(/^after \d+\n$/);
    expect(session.final).toMatchObject({ state: "exited", exit_code: 7 });
  });
});
