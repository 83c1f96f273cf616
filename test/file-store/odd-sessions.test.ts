/**
 * Sessions as readers find them on disk when something went wrong: copied directories, a lone
 * final.json, a recording derun that was killed, and text reads of one or two bytes at a time.
 * End to end: real `derun run` recordings, read by the SDK Client over stdio from `derun mcp`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import * as fs from "node:fs";
import * as path from "node:path";
import { derunArgv, derunEnv, REPO_ROOT, runDerun, tempDir, text } from "../helpers/cli.ts";
import { call } from "../helpers/harness.ts";
import { connectStdio } from "../helpers/stdio-client.ts";

const root = tempDir("derun-odd-");
const sessions = path.join(root.path, "sessions");
let client: Client & AsyncDisposable;
const TIMEOUT = 30_000;
/**
 * Characters of 1 to 4 bytes next to each other, and sequences cut short (as a program killed
 * mid-character leaves them) right before valid characters.
 */
const BYTES = Buffer.concat([
  Buffer.from("a🙂bé€x🙂🙂z"),
  Buffer.from([0xf0, 0x9f]),
  Buffer.from("🙂"),
  Buffer.from([0xe2, 0x82]),
  Buffer.from("é"),
  Buffer.from([0xc3]),
  Buffer.from("x"),
]);
/** What a reader must get back: the bytes decoded whole (a cut-short sequence is one U+FFFD). */
const TEXT = new TextDecoder().decode(BYTES);

beforeAll(async () => {
  const file = path.join(root.path, "text.txt");
  fs.writeFileSync(file, BYTES);
  for (const id of ["orig", "text"]) {
    const done = await runDerun(["run", "--session-id", id, "--", "cat", file], { stateRoot: root.path });
    expect(done.exitCode).toBe(0);
  }
  client = await connectStdio(root.path);
}, TIMEOUT);
afterAll(async () => {
  await client[Symbol.asyncDispose]();
  root[Symbol.dispose]();
});

describe("text reads of one or two bytes", () => {
  for (const maxBytes of [1, 2, 3]) {
    test(
      `max_bytes ${maxBytes}: the pieces reassemble to the text decoded whole, cursors exact`,
      async () => {
        let cursor = "0";
        let text = "";
        let offset = "0";
        for (let reads = 0; reads < 100; reads++) {
          const { result } = await call(client, "derun_read_output", { session_id: "text", cursor, max_bytes: maxBytes });
          for (const chunk of result.chunks) {
            expect(chunk.start_cursor).toBe(offset);
            offset = chunk.end_cursor;
            text += chunk.data;
          }
          expect(Number(result.next_cursor)).toBeGreaterThan(Number(cursor));
          cursor = result.next_cursor;
          if (result.eof) break;
        }
        expect(text).toBe(TEXT);
        expect(text.match(/🙂/gu)?.length).toBe(4);
      },
      TIMEOUT,
    );
  }
});

describe("directories readers must not be fooled by", () => {
  test(
    "three directories holding a copied meta.json list as three sessions, each under its directory's name",
    async () => {
      for (const copy of ["copy-1", "copy-2"]) fs.cpSync(path.join(sessions, "orig"), path.join(sessions, copy), { recursive: true });
      const { result } = await call(client, "derun_list_sessions", {});
      const ids = result.sessions.map((s: { session_id: string }) => s.session_id).sort();
      expect(ids).toEqual(["copy-1", "copy-2", "orig", "text"]);
      expect((await call(client, "derun_get_session", { session_id: "copy-2" })).result.session.session_id).toBe("copy-2");
      const read = (await call(client, "derun_read_output", { session_id: "copy-1" })).result;
      expect(read.session_id).toBe("copy-1");
    },
    TIMEOUT,
  );

  test(
    "a directory holding only final.json reads as that final state",
    async () => {
      fs.mkdirSync(path.join(sessions, "lone-final"), { mode: 0o700 });
      const endedAt = new Date(Date.now() - 60_000).toISOString();
      fs.writeFileSync(
        path.join(sessions, "lone-final", "final.json"),
        JSON.stringify({ schema_version: "v1alpha1", session_id: "lone-final", state: "exited", exit_code: 3, ended_at: endedAt }),
        { mode: 0o600 },
      );
      const got = await call(client, "derun_get_session", { session_id: "lone-final" });
      expect(got.isError).toBe(false);
      expect(got.result.session).toMatchObject({ session_id: "lone-final", state: "exited", exit_code: 3, ended_at: endedAt });
      const read = await call(client, "derun_read_output", { session_id: "lone-final" });
      expect(read.result).toMatchObject({ chunks: [], eof: true, session_state: "exited" });
      const listed = (await call(client, "derun_list_sessions", {})).result.sessions.map((s: { session_id: string }) => s.session_id);
      expect(listed).toContain("lone-final");
    },
    TIMEOUT,
  );
});

describe("a damaged index.jsonl", () => {
  /** A copy of "orig" whose output is three lines, one index record each, with `damage` applied to the index's lines. */
  const damagedCopy = (id: string, damage: (lines: string[]) => string[]) => {
    const dir = path.join(sessions, id);
    fs.cpSync(path.join(sessions, "orig"), dir, { recursive: true });
    const { channel, timestamp } = JSON.parse(fs.readFileSync(path.join(dir, "index.jsonl"), "utf8").split("\n")[0]!);
    const parts = ["one\n", "two\n", "three\n"];
    fs.writeFileSync(path.join(dir, "output.bin"), parts.join(""));
    let offset = 0;
    const lines = parts.map((part) => {
      const line = JSON.stringify({ offset, length: part.length, channel, timestamp });
      offset += part.length;
      return line;
    });
    fs.writeFileSync(path.join(dir, "index.jsonl"), `${damage(lines).join("\n")}\n`);
  };

  test(
    "a line in the middle that is no record: reads say the session is corrupt, not its output up to there as if it were all",
    async () => {
      damagedCopy("damaged-mid", ([first, , third]) => [first!, "garbage{", third!]);
      const read = await call(client, "derun_read_output", { session_id: "damaged-mid" });
      expect(read).toMatchObject({ isError: true, text: "corrupt session damaged-mid: index.jsonl line 2 is not a valid record" });
      const cat = await runDerun(["cat", "damaged-mid"], { stateRoot: root.path });
      expect(cat.exitCode).toBe(1);
      expect(text(cat.stdout)).toBe("");
      expect(text(cat.stderr)).toBe("derun: corrupt session damaged-mid: index.jsonl line 2 is not a valid record\n");
    },
    TIMEOUT,
  );

  test(
    "a last line that is no record: the listing counts the bytes of the records before it, not 0",
    async () => {
      damagedCopy("damaged-tail", (lines) => [...lines.slice(0, 2), "garbage{"]);
      const listed = (await call(client, "derun_list_sessions", {})).result.sessions.find(
        (s: { session_id: string }) => s.session_id === "damaged-tail",
      );
      expect(listed.output_bytes).toBe("one\ntwo\n".length);
    },
    TIMEOUT,
  );
});

describe("a recording derun killed with SIGKILL", () => {
  test(
    "its session says it failed and why, and does not claim it ended at its last output",
    async () => {
      const run = Bun.spawn([...derunArgv(), "run", "--session-id", "killed", "--", "sh", "-c", "printf started; exec sleep 60"], {
        env: derunEnv(root.path),
        stdin: "ignore",
        stdout: "pipe",
        stderr: "ignore",
        cwd: REPO_ROOT,
      });
      const reader = run.stdout.getReader();
      let seen = "";
      while (!seen.includes("started")) seen += new TextDecoder().decode((await reader.read()).value);
      const dir = path.join(sessions, "killed");
      let childPid = 0;
      while (childPid === 0) childPid = JSON.parse(fs.readFileSync(path.join(dir, "meta.json"), "utf8")).pid;
      try {
        // As if the command had been quiet for an hour before derun was killed.
        const anHourAgo = new Date(Date.now() - 3_600_000);
        for (const name of [...fs.readdirSync(dir).map((n) => path.join(dir, n)), dir]) fs.utimesSync(name, anHourAgo, anHourAgo);
        const killedAt = Date.now();
        run.kill("SIGKILL");
        await run.exited;
        const { result } = await call(client, "derun_get_session", { session_id: "killed" });
        expect(result.session.state).toBe("failed");
        expect(result.session.error).toMatch(/derun/);
        if (result.session.ended_at !== undefined) expect(Date.parse(result.session.ended_at)).toBeGreaterThanOrEqual(killedAt - 1000);
      } finally {
        run.kill("SIGKILL");
        try {
          process.kill(childPid, "SIGKILL");
        } catch {}
      }
    },
    TIMEOUT,
  );
});
