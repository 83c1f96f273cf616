/** Traversal ids and symlink escapes are rejected on read and on write (docs/format.md, "Files of a session"). */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import type { Store } from "../../src/core/store.ts";
import type { ArtifactName } from "../../src/file-store/session-paths.ts";
import { makeRoot, removeRoot, sessionOptions } from "../helpers/store.ts";

const ARTIFACTS: ArtifactName[] = ["meta.json", "final.json", "output.bin", "index.jsonl", "append.lock"];

let root: string;
let outside: string;
let store: Store;
beforeEach(() => {
  root = makeRoot();
  outside = path.join(root, "outside");
  fs.mkdirSync(outside);
  store = openFileStore({ root });
});
afterEach(() => removeRoot(root));

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "resolved",
    (e: { code?: string }) => e.code ?? String(e),
  );

/** Every file under `dir`, with its content, to prove nothing changed there. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const p = path.join(dir, name);
    out[name] = fs.lstatSync(p).isFile() ? fs.readFileSync(p, "latin1") : "<dir>";
  }
  return out;
}

/** A session whose writer is gone without final.json: every artifact is consulted by read(). */
async function deadSession(id: string): Promise<string> {
  const w = await store.create(sessionOptions({ sessionId: id }));
  w.append("stdout", new TextEncoder().encode("secret-free bytes"));
  await w[Symbol.asyncDispose]();
  return path.join(root, "sessions", id);
}

describe("traversal ids", () => {
  for (const id of [".", "..", "../escape", "a/b", "a\\b", "/abs", "", "-lead", "x".repeat(129)]) {
    test(`create ${JSON.stringify(id)} is rejected with nothing written, and reads say not found`, async () => {
      expect(await codeOf(store.create(sessionOptions({ sessionId: id })))).toBe("invalid_session_id");
      expect(fs.readdirSync(root)).toEqual(["outside"]);
      expect(await codeOf(store.get(id))).toBe("session_not_found");
      expect(await codeOf(store.read(id, 0, 10))).toBe("session_not_found");
      expect(await codeOf(store.waitForOutput(id, 0, 10))).toBe("session_not_found");
    });
  }
});

describe("symlinked session directory", () => {
  test("is rejected for read and write, and nothing is written through it", async () => {
    const real = await deadSession("real");
    fs.cpSync(real, path.join(outside, "evil"), { recursive: true });
    fs.symlinkSync(path.join(outside, "evil"), path.join(root, "sessions", "evil"));
    fs.symlinkSync(path.join(outside, "nowhere"), path.join(root, "sessions", "dangling"));
    const before = snapshot(outside);
    for (const id of ["evil", "dangling"]) {
      expect(await codeOf(store.get(id))).toBe("unsafe_path");
      expect(await codeOf(store.read(id, 0, 10))).toBe("unsafe_path");
      expect(await codeOf(store.waitForOutput(id, 0, 10))).toBe("unsafe_path");
      expect(await codeOf(store.create(sessionOptions({ sessionId: id })))).toBe("unsafe_path");
    }
    expect((await store.list()).map((s) => s.meta.session_id)).toEqual(["real"]);
    expect(snapshot(outside)).toEqual(before);
  });
});

describe("symlinked artifacts", () => {
  for (const artifact of ARTIFACTS) {
    test(`${artifact} pointing outside (existing or dangling) is rejected on read`, async () => {
      for (const kind of ["existing", "dangling"] as const) {
        const id = `read-${kind}`;
        const dir = await deadSession(id);
        const target = path.join(outside, `${kind}-${artifact}`);
        const own = path.join(dir, artifact);
        if (kind === "existing") fs.copyFileSync(fs.existsSync(own) ? own : path.join(dir, "meta.json"), target);
        fs.rmSync(own, { force: true });
        fs.symlinkSync(target, own);
        const before = snapshot(outside);
        expect(await codeOf(store.read(id, 0, 100))).toBe("unsafe_path");
        expect(snapshot(outside)).toEqual(before);
      }
    });

    test(`${artifact} pointing outside (existing or dangling) is rejected on create, nothing written outside`, async () => {
      for (const kind of ["existing", "dangling"] as const) {
        const id = `create-${kind}`;
        const dir = path.join(root, "sessions", id);
        fs.mkdirSync(dir, { recursive: true });
        const target = path.join(outside, `${kind}-${artifact}`);
        if (kind === "existing") fs.writeFileSync(target, "outside content");
        fs.symlinkSync(target, path.join(dir, artifact));
        const before = snapshot(outside);
        // A directory this create did not make is refused before any file in it is looked at.
        expect(await codeOf(store.create(sessionOptions({ sessionId: id })))).toBe("session_exists");
        expect(snapshot(outside)).toEqual(before);
      }
    });
  }

  test("meta.json and final.json swapped for outside links under a live writer are not written through", async () => {
    const w = await store.create(sessionOptions({ sessionId: "swap" }));
    const dir = path.join(root, "sessions", "swap");
    fs.rmSync(path.join(dir, "meta.json"));
    fs.symlinkSync(path.join(outside, "meta.json"), path.join(dir, "meta.json"));
    fs.symlinkSync(path.join(outside, "final.json"), path.join(dir, "final.json"));
    expect(await codeOf(w.started({ pid: 1, transportMode: "pipe", ttyAttached: false }))).toBe("unsafe_path");
    expect(await codeOf(w.finalize({ state: "exited", exit_code: 0 }))).toBe("unsafe_path");
    await w[Symbol.asyncDispose]();
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  test("a link between artifacts inside the session directory is followed", async () => {
    const dir = await deadSession("inside");
    fs.renameSync(path.join(dir, "output.bin"), path.join(dir, "output.real"));
    fs.symlinkSync("output.real", path.join(dir, "output.bin"));
    const r = await store.read("inside", 0, 100);
    expect(new TextDecoder().decode(r.slices[0]!.bytes)).toBe("secret-free bytes");
  });
});
