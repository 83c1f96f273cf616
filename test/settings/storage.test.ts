/** The settings file (src/settings/config-file.ts) and its `storage` key (src/settings/storage.ts), on real files. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isDerunError } from "../../src/core/errors.ts";
import { DEFAULT_STORAGE } from "../../src/core/store.ts";
import { configFilePath, readConfig } from "../../src/settings/config-file.ts";
import { parseSize, readStoragePolicy } from "../../src/settings/storage.ts";

let home: string;
let env: Record<string, string>;
const file = () => configFilePath(env);
const write = (text: string, mode = 0o600) => {
  fs.mkdirSync(path.dirname(file()), { recursive: true });
  fs.writeFileSync(file(), text, { mode });
  fs.chmodSync(file(), mode);
};
/** The one-line usage error a call throws. */
const usageOf = (call: () => unknown): string => {
  try {
    call();
  } catch (error) {
    if (isDerunError(error, "usage")) return error.message;
    throw error;
  }
  throw new Error("no error");
};

beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "derun-settings-"));
  env = { XDG_CONFIG_HOME: path.join(home, "config"), HOME: home };
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

describe("config file", () => {
  test("its place: XDG_CONFIG_HOME, else ~/.config", () => {
    expect(configFilePath({ XDG_CONFIG_HOME: "/x" })).toBe("/x/derun/config.json");
    expect(configFilePath({ HOME: "/h" })).toBe("/h/.config/derun/config.json");
  });

  test("absent: {}", () => expect(readConfig(env)).toEqual({}));

  test("a JSON object is read whole", () => {
    write('{"storage":{"max_total":"20MB"},"other":1}');
    expect(readConfig(env)).toEqual({ storage: { max_total: "20MB" }, other: 1 });
  });

  test("bad JSON, not an object, too large, writable by others, a symlink: one line naming the file", () => {
    write("{nope");
    expect(usageOf(() => readConfig(env))).toStartWith(`settings file ${JSON.stringify(file())} is not JSON: `);
    write("[1]");
    expect(usageOf(() => readConfig(env))).toBe(`settings file ${JSON.stringify(file())} is not a JSON object`);
    write(`{"x":"${"a".repeat(1_100_000)}"}`);
    expect(usageOf(() => readConfig(env))).toContain("larger than");
    write("{}", 0o622);
    expect(usageOf(() => readConfig(env))).toContain("writable by other users");
    fs.rmSync(file());
    const target = path.join(home, "elsewhere.json");
    fs.writeFileSync(target, "{}");
    fs.symlinkSync(target, file());
    expect(usageOf(() => readConfig(env))).toContain("is a symlink");
    for (const message of [usageOf(() => readConfig(env))]) expect(message).not.toContain("\n");
  });
});

describe("storage settings", () => {
  test("sizes: units of 1000 and 1024, plain bytes, percentages", () => {
    expect(parseSize("20MB")).toEqual({ bytes: 20_000_000 });
    expect(parseSize("4GiB")).toEqual({ bytes: 4 * 1024 ** 3 });
    expect(parseSize("512k")).toEqual({ bytes: 512 * 1024 });
    expect(parseSize(4096)).toEqual({ bytes: 4096 });
    expect(parseSize("10%")).toEqual({ percent: 10 });
    expect(parseSize("1.5 MiB")).toEqual({ bytes: 1.5 * 1024 ** 2 });
    for (const bad of ["", "ten", "5XB", "-1MB", "101%", -3, 1.5, true, null]) expect(typeof parseSize(bad)).toBe("string");
  });

  test("defaults where the file says nothing", () => {
    expect(readStoragePolicy(env)).toEqual(DEFAULT_STORAGE);
    write('{"storage":{"keep_free":"40%"}}');
    expect(readStoragePolicy(env)).toEqual({ ...DEFAULT_STORAGE, keepFree: { percent: 40 } });
  });

  test("a bad value, an unknown key, a storage that is no object: one line naming the key", () => {
    write('{"storage":{"max_total":"lots"}}');
    expect(usageOf(() => readStoragePolicy(env))).toBe(
      `${file()}: storage.max_total must be a size such as "20MB", "4GiB" or "10%", got "lots"`,
    );
    write('{"storage":{"max_totl":"1GB"}}');
    expect(usageOf(() => readStoragePolicy(env))).toStartWith(`${file()}: storage.max_totl is not a setting`);
    write('{"storage":{"keep_free":"100%"}}');
    expect(usageOf(() => readStoragePolicy(env))).toBe(`${file()}: storage.keep_free must be under 100%`);
    write('{"storage":{"max_session":0}}');
    expect(usageOf(() => readStoragePolicy(env))).toBe(`${file()}: storage.max_session must be more than 0`);
    write('{"storage":{"compress":"yes"}}');
    expect(usageOf(() => readStoragePolicy(env))).toBe(`${file()}: storage.compress must be true or false, got "yes"`);
    write('{"storage":{"compress":true}}');
    expect(readStoragePolicy(env)).toEqual({ ...DEFAULT_STORAGE, compress: true });
    write('{"storage":"big"}');
    expect(usageOf(() => readStoragePolicy(env))).toBe(`${file()}: storage is not a JSON object`);
  });
});
