/**
 * Settings files are read as ssh reads its own (issue 43.7): config.json through readConfig, and
 * redact.json by the real `derun cat` and `derun mcp`. A FIFO, a link to /dev/zero, a huge file, a
 * file or directory others may write, or a file of another user (with a real second user, when the
 * test runs as root) is refused at once with one line naming the file and exit 2.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import { join } from "node:path";
import { DerunError } from "../../src/core/errors.ts";
import { configFilePath, readConfig } from "../../src/settings/config-file.ts";
import { runDerun, tempDir, text } from "../helpers/cli.ts";

const isRoot = process.getuid?.() === 0;
const OTHER = `derun-s${process.pid}`;
const state = tempDir("derun-settings-state-");

beforeAll(async () => {
  if (isRoot) Bun.spawnSync(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", OTHER]);
  expect((await runDerun(["run", "--session-id", "s", "--", "echo", "hi"], { stateRoot: state.path })).exitCode).toBe(0);
});
afterAll(() => {
  if (isRoot) Bun.spawnSync(["userdel", OTHER]);
  state[Symbol.dispose]();
});

/** A fresh $XDG_CONFIG_HOME with its derun/ directory. */
function home(): { path: string; dir: string } & Disposable {
  const d = tempDir("derun-settings-");
  const dir = join(d.path, "derun");
  fs.mkdirSync(dir, { mode: 0o700 });
  return Object.assign(d, { dir });
}

/** Ways a settings file at `file` can be unsafe, each with the words its error must hold. */
const UNSAFE: ReadonlyArray<readonly [string, (file: string) => void, RegExp]> = [
  ["a FIFO", (f) => Bun.spawnSync(["mkfifo", f]), /is not a regular file/],
  ["a link to /dev/zero", (f) => fs.symlinkSync("/dev/zero", f), /is a symlink/],
  ["a directory", (f) => fs.mkdirSync(f), /is not a regular file/],
  ["larger than 1 MiB", (f) => fs.writeFileSync(f, `{"x":"${"a".repeat(1 << 20)}"}`), /is larger than 1048576 bytes/],
  ["writable by others", (f) => (fs.writeFileSync(f, "{}"), fs.chmodSync(f, 0o666)), /is writable by other users \(mode 0666\)/],
  [
    "in a directory others may write",
    (f) => (fs.writeFileSync(f, "{}"), fs.chmodSync(join(f, ".."), 0o1777)),
    /its directory .* is writable by other users/,
  ],
];

describe("config.json (readConfig)", () => {
  test("where it is looked for", () => {
    expect(configFilePath({ XDG_CONFIG_HOME: "/x" })).toBe("/x/derun/config.json");
    expect(configFilePath({ HOME: "/h" })).toBe("/h/.config/derun/config.json");
  });

  test("absent: {}; an object: itself; not JSON or not an object: one line naming the file", () => {
    using h = home();
    const env = { XDG_CONFIG_HOME: h.path };
    expect(readConfig(env)).toEqual({});
    fs.writeFileSync(join(h.dir, "config.json"), '{"record":{"ignore_dirs":["~/x"]}}');
    expect(readConfig(env)).toEqual({ record: { ignore_dirs: ["~/x"] } });
    for (const [content, why] of [
      ["{", /is not JSON/],
      ["[1]", /is not a JSON object/],
      ["null", /is not a JSON object/],
    ] as const) {
      fs.writeFileSync(join(h.dir, "config.json"), content);
      expect(() => readConfig(env)).toThrow(why);
      expect(() => readConfig(env)).toThrow(DerunError);
    }
  });

  for (const [name, make, why] of UNSAFE)
    test(`refused: ${name}`, () => {
      using h = home();
      make(join(h.dir, "config.json"));
      const started = performance.now();
      let error: unknown;
      try {
        readConfig({ XDG_CONFIG_HOME: h.path });
      } catch (e) {
        error = e;
      }
      expect(performance.now() - started).toBeLessThan(2000);
      expect(error).toBeInstanceOf(DerunError);
      expect((error as DerunError).code).toBe("usage");
      expect((error as DerunError).message).toMatch(why);
      expect((error as DerunError).message).toContain(join(h.dir, "config.json"));
      expect((error as DerunError).message).not.toContain("\n");
    });

  test.if(isRoot)("refused: a file of another user", () => {
    using h = home();
    const file = join(h.dir, "config.json");
    fs.writeFileSync(file, "{}");
    fs.chownSync(file, Number(Bun.spawnSync(["id", "-u", OTHER]).stdout.toString()), 0);
    expect(() => readConfig({ XDG_CONFIG_HOME: h.path })).toThrow(/belongs to another user \(uid \d+\)/);
  });
});

describe("redact.json, read by derun cat and derun mcp", () => {
  for (const [name, make, why] of UNSAFE)
    test(`refused: ${name}`, async () => {
      using h = home();
      const file = join(h.dir, "redact.json");
      make(file);
      for (const args of [["cat", "s"], ["mcp"]]) {
        const done = await runDerun(args, { stateRoot: state.path, env: { XDG_CONFIG_HOME: h.path }, stdin: new Uint8Array() });
        const err = text(done.stderr).split("\n");
        expect([args[0], done.exitCode, text(done.stdout)]).toEqual([args[0], 2, ""]);
        expect(err[0]).toMatch(why);
        expect(err[0]).toContain(file);
      }
    });

  test.if(isRoot)("refused: a file of another user, even one that only allows", async () => {
    using h = home();
    const file = join(h.dir, "redact.json");
    fs.writeFileSync(file, '{"allow":[""]}');
    fs.chownSync(file, Number(Bun.spawnSync(["id", "-u", OTHER]).stdout.toString()), 0);
    const done = await runDerun(["cat", "s"], { stateRoot: state.path, env: { XDG_CONFIG_HOME: h.path } });
    expect([done.exitCode, text(done.stdout)]).toEqual([2, ""]);
    expect(text(done.stderr)).toMatch(/belongs to another user/);
  });

  test("a safe file is still read", async () => {
    using h = home();
    fs.writeFileSync(join(h.dir, "redact.json"), '{"rules":[{"id":"hi","pattern":"hi"}]}');
    const done = await runDerun(["cat", "s"], { stateRoot: state.path, env: { XDG_CONFIG_HOME: h.path } });
    expect([done.exitCode, text(done.stdout)]).toEqual([0, "**\n"]);
  });
});
