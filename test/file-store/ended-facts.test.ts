/**
 * A reader keeps an ended session's facts (and its files' real paths) while the session's directory
 * is unchanged, and reads them again the moment it changes: removed, its final.json rewritten, or
 * the directory made a symlink. One long-lived store (as derun mcp's) reads
 * the session before and after each change.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import type { Store } from "../../src/core/store.ts";
import { isDerunError } from "../../src/core/errors.ts";
import { makeRoot, removeRoot, sessionOptions } from "../helpers/store.ts";

let root: string;
let store: Store;
beforeEach(() => {
  root = makeRoot();
  store = openFileStore({ root });
});
afterEach(() => removeRoot(root));

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const readAll = async (id: string) => text((await store.read(id, 0, 1 << 20)).slices[0]?.bytes ?? new Uint8Array());

async function ended(id: string, output: string, exitCode: number): Promise<void> {
  await using writer = await store.create(sessionOptions({ sessionId: id }));
  writer.append("stdout", new TextEncoder().encode(output));
  await writer.finalize({ state: "exited", exit_code: exitCode });
}

describe("an ended session's facts, kept", () => {
  test("removed: not found at once, though its facts were kept", async () => {
    await ended("gone", "first\n", 1);
    expect((await store.get("gone")).final?.exit_code).toBe(1);
    expect(await readAll("gone")).toBe("first\n");
    fs.rmSync(path.join(root, "sessions", "gone"), { recursive: true });
    expect(await store.get("gone").catch((e) => isDerunError(e, "session_not_found"))).toBe(true);
    expect(await store.read("gone", 0, 10).catch((e) => isDerunError(e, "session_not_found"))).toBe(true);
  });

  test("trimmed after it was read (trim.json renamed in, as the trim writes it): the next read begins at the kept bytes", async () => {
    await ended("trimmed", "0123456789", 0);
    expect(await readAll("trimmed")).toBe("0123456789");
    expect((await store.get("trimmed")).kept_from).toBeUndefined();
    const file = path.join(root, "sessions", "trimmed", "trim.json");
    const record = { schema_version: "1", session_id: "trimmed", kept_from: 4, trimmed_at: new Date().toISOString() };
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(record));
    fs.renameSync(`${file}.tmp`, file);
    expect((await store.get("trimmed")).kept_from).toBe(4);
    const read = await store.read("trimmed", 0, 100);
    expect([read.kept_from, text(read.slices[0]!.bytes)]).toEqual([4, "456789"]);
  });

  test("its final.json rewritten in place by a rename (as an atomic write does): the new facts", async () => {
    await ended("rewritten", "out\n", 3);
    expect((await store.get("rewritten")).final?.exit_code).toBe(3);
    const file = path.join(root, "sessions", "rewritten", "final.json");
    const final = JSON.parse(fs.readFileSync(file, "utf8"));
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({ ...final, exit_code: 9 }));
    fs.renameSync(`${file}.tmp`, file);
    expect((await store.get("rewritten")).final?.exit_code).toBe(9);
  });

  test("its gaps kept once read, the same each time; a gaps.jsonl renamed in (the directory changed) read anew", async () => {
    {
      await using writer = await store.create(sessionOptions({ sessionId: "paused" }));
      writer.append("stdout", new TextEncoder().encode("ab"));
      const at = new Date().toISOString();
      writer.recordGap({ offset: 1, bytes: 5, reason: "paused", started_at: at, ended_at: at });
      await writer.finalize({ state: "exited", exit_code: 0 });
    }
    const first = await store.gaps("paused");
    expect(first.map((g) => [g.offset, g.bytes])).toEqual([[1, 5]]);
    // A caller's copy: changing it changes nothing kept.
    first.pop();
    expect((await store.gaps("paused")).map((g) => [g.offset, g.bytes])).toEqual([[1, 5]]);
    const file = path.join(root, "sessions", "paused", "gaps.jsonl");
    const line = fs.readFileSync(file, "utf8");
    fs.writeFileSync(`${file}.tmp`, `${line}${line.replace('"offset":1', '"offset":2')}`);
    fs.renameSync(`${file}.tmp`, file);
    expect((await store.gaps("paused")).map((g) => g.offset)).toEqual([1, 2]);
  });

  test("its directory replaced by a symlink: refused, as a reader refuses one it never saw", async () => {
    await ended("swapped", "mine\n", 0);
    await ended("other", "not mine\n", 0);
    expect(await readAll("swapped")).toBe("mine\n");
    const dir = path.join(root, "sessions", "swapped");
    fs.renameSync(dir, path.join(root, "moved-away"));
    fs.symlinkSync(path.join(root, "sessions", "other"), dir);
    const refused = await store.read("swapped", 0, 100).then(
      () => "read",
      (e) => (isDerunError(e, "unsafe_path") || isDerunError(e, "session_not_found") ? "refused" : String(e)),
    );
    expect(refused).toBe("refused");
  });
});

describe("a look at once (Store.atOnce, a page of derun mcp)", () => {
  const rewriteFinal = (id: string, exitCode: number) => {
    const file = path.join(root, "sessions", id, "final.json");
    const final = JSON.parse(fs.readFileSync(file, "utf8"));
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({ ...final, exit_code: exitCode }));
    fs.renameSync(`${file}.tmp`, file);
  };

  test("the facts of its first look hold inside it; the next look sees the change", async () => {
    await ended("once", "out\n", 3);
    expect((await store.get("once")).final?.exit_code).toBe(3);
    const inside = await store.atOnce!(async () => {
      const first = (await store.get("once")).final?.exit_code;
      rewriteFinal("once", 9);
      return [first, (await store.get("once")).final?.exit_code];
    });
    expect(inside).toEqual([3, 3]);
    expect((await store.get("once")).final?.exit_code).toBe(9);
  });

  test("a session first looked at inside it is checked then (a change before it is seen)", async () => {
    await ended("late", "out\n", 1);
    expect((await store.get("late")).final?.exit_code).toBe(1);
    rewriteFinal("late", 4);
    expect(await store.atOnce!(async () => (await store.get("late")).final?.exit_code)).toBe(4);
  });

  test("a trim during it is still seen after the bytes are read", async () => {
    await ended("trim-in", "0123456789", 0);
    expect(await readAll("trim-in")).toBe("0123456789");
    const read = await store.atOnce!(async () => {
      expect((await store.get("trim-in")).kept_from).toBeUndefined();
      const file = path.join(root, "sessions", "trim-in", "trim.json");
      const record = { schema_version: "1", session_id: "trim-in", kept_from: 4, trimmed_at: new Date().toISOString() };
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(record));
      fs.renameSync(`${file}.tmp`, file);
      return store.read("trim-in", 0, 100);
    });
    expect([read.kept_from, text(read.slices[0]!.bytes)]).toEqual([4, "456789"]);
  });

  test("two looks open at once: the facts hold until both have closed", async () => {
    await ended("both", "out\n", 2);
    const first = Promise.withResolvers<void>();
    const outer = store.atOnce!(async () => {
      await store.get("both");
      await first.promise;
      return (await store.get("both")).final?.exit_code;
    });
    const inner = await store.atOnce!(async () => {
      rewriteFinal("both", 5);
      return (await store.get("both")).final?.exit_code;
    });
    first.resolve();
    expect([inner, await outer]).toEqual([2, 2]);
    expect((await store.get("both")).final?.exit_code).toBe(5);
  });

  // Pages in flight one over the other (an agent that keeps two reads out) never leave none open:
  // the facts a look checked must not outlive every look open when it checked them.
  test("looks that overlap in a chain: a look opened after the checking one has closed checks again", async () => {
    await ended("chain", "out\n", 2);
    await ended("gone-in-chain", "out\n", 1);
    const a = Promise.withResolvers<void>();
    const b = Promise.withResolvers<void>();
    const checked = Promise.withResolvers<void>();
    const first = store.atOnce!(async () => {
      await store.get("chain");
      await store.get("gone-in-chain");
      checked.resolve();
      await a.promise;
    });
    await checked.promise; // the second opens after the first checked both
    const second = store.atOnce!(async () => {
      await b.promise;
      const gone = await store.get("gone-in-chain").catch((e) => (isDerunError(e, "session_not_found") ? "not found" : e));
      return [(await store.get("chain")).final?.exit_code, gone];
    });
    a.resolve();
    await first; // the look that checked them is closed; the second is still open
    rewriteFinal("chain", 6);
    fs.rmSync(path.join(root, "sessions", "gone-in-chain"), { recursive: true });
    b.resolve();
    expect(await second).toEqual([6, "not found"]);
  });
});
