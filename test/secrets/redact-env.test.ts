/** The fingerprints of secret-named variables: what is recorded, and finding the values from them. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSecretName, secretEnvFingerprints } from "../../src/secrets/env-fingerprints.ts";
import { envValuesOf } from "../../src/secrets/env-values.ts";
import { Masker } from "../../src/secrets/masker.ts";
import { loadSettings } from "../../src/secrets/config.ts";
import { RULES } from "../../src/secrets/rules.ts";
import { randomText } from "../helpers/secrets.ts";

const r = randomText(99);
const value = r(20, "abcdefghijklmnopqrstuvwxyz"); // no rule would find this one: only its fingerprint can

describe("secret-named variables", () => {
  test("names", () => {
    for (const name of [
      "GITHUB_TOKEN",
      "AWS_SECRET_ACCESS_KEY",
      "OPENAI_API_KEY",
      "DB_PASSWORD",
      "PGPASSWORD",
      "MY_PASSWD",
      "STRIPE_KEY",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "NPM_AUTH",
      "AWS_ACCESS_KEY_ID",
    ]) {
      expect({ name, secret: isSecretName(name) }).toEqual({ name, secret: true });
    }
    for (const name of ["PWD", "OLDPWD", "PATH", "HOME", "KEYBOARD", "GIT_AUTHOR_NAME", "TERM", "EDITOR"])
      expect({ name, secret: isSecretName(name) }).toEqual({ name, secret: false });
  });

  test("only long values that are not paths are fingerprinted, and no value is written", () => {
    const f = secretEnvFingerprints({
      GITHUB_TOKEN: value,
      SHORT_TOKEN: "abc",
      SSH_AUTH_SOCK: "/tmp/ssh-x/agent.1",
      HOME: "/home/u",
      PATH: value + "x",
    })!;
    expect(f.values.length).toBe(1);
    expect(f.values[0]!.length).toBe(20);
    expect(JSON.stringify(f)).not.toContain(value.slice(0, 6));
    expect(secretEnvFingerprints({ HOME: "/root" })).toBeUndefined();
  });

  test("a reader finds the value between delimiters, and nowhere else", () => {
    const masker = new Masker({ rules: [], env: envValuesOf(JSON.parse(JSON.stringify(secretEnvFingerprints({ MY_TOKEN: value })))) });
    for (const line of [`MY_TOKEN=${value}`, `"${value}"`, `Authorization: ${value}\r`, `https://u:${value}@h`, value]) {
      expect(masker.maskLine(line)).toEqual({ text: line.replace(value, "*".repeat(20)), count: 1 });
    }
    for (const line of [`x${value}`, `${value}x`, value.slice(1)]) expect(masker.maskLine(line).count).toBe(0);
  });

  test("two sessions' fingerprints of one value differ (a salt each)", () => {
    const a = secretEnvFingerprints({ A_TOKEN: value })!;
    const b = secretEnvFingerprints({ A_TOKEN: value })!;
    expect(a.values[0]!.hash).not.toBe(b.values[0]!.hash);
  });

  test("a field another writer made up is ignored", () => {
    expect(envValuesOf({ salt: "nothex", values: [] })).toBeUndefined();
    expect(envValuesOf("x")).toBeUndefined();
  });
});

describe("the user's settings file", () => {
  const dir = mkdtempSync(join(tmpdir(), "derun-redact-"));
  const write = (name: string, content: unknown) => {
    const file = join(dir, name);
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
    return file;
  };

  test("none: the built-in rules", async () => {
    expect((await loadSettings(join(dir, "absent.json"))).rules).toBe(RULES);
  });

  test("extra rules, an allow-list, and built-in rules turned off", async () => {
    const s = await loadSettings(
      write("ok.json", {
        rules: [{ id: "acme", pattern: "acme_[a-z0-9]{12,}", keywords: ["ACME_"] }],
        allow: ["^ghp_EXAMPLE"],
        disable: ["jwt"],
      }),
    );
    expect(s.rules.map((x) => x.id)).toContain("acme");
    expect(s.rules.map((x) => x.id)).not.toContain("jwt");
    const masker = new Masker(s);
    expect(masker.maskLine("id acme_abcdef123456 ok").text).toBe(`id ${"*".repeat(17)} ok`);
    expect(masker.maskLine(`t ghp_EXAMPLE${"a".repeat(30)}`).count).toBe(0);
  });

  test("a file that cannot be used is a one-line error naming it", async () => {
    await expect(loadSettings(write("bad1.json", "{"))).rejects.toThrow(/bad1\.json: not JSON/);
    await expect(loadSettings(write("bad2.json", { rules: [{ id: "x", pattern: "(" }] }))).rejects.toThrow(
      /bad2\.json: rule "x" is not a regular expression/,
    );
    await expect(loadSettings(write("bad3.json", { disable: ["nope"] }))).rejects.toThrow(/bad3\.json: disable names no built-in rule/);
    await expect(loadSettings(write("bad4.json", { extra: 1 }))).rejects.toThrow(/bad4\.json:/);
  });
});
