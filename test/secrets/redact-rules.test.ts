/**
 * Each built-in rule on a line it must mask (and the line kept around the secret), and the shapes
 * derun never masks, after keys that sound like secrets and on their own.
 */
import { describe, expect, test } from "bun:test";
import { RULES } from "../../src/secrets/rules.ts";
import { Masker } from "../../src/secrets/masker.ts";
import { maskBytes } from "../../src/secrets/mask-bytes.ts";
import { KEEP, leakedPieces, privateKey, SECRETS as S } from "../helpers/secrets.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const masker = new Masker({ rules: RULES });
const mask = (line: string) => masker.maskLine(line);
/** `line` masked where `secret` is: the same length, `*` in its place, the rest unchanged. */
const expectMasked = (line: string, secret: string) => {
  const { text, count } = mask(line);
  expect(count).toBeGreaterThanOrEqual(1);
  expect(text).toBe(line.replace(secret, "*".repeat(secret.length)));
};

/** Per rule: lines it must mask, with the secret in each. */
const CASES: Record<string, Array<[line: string, secret: string]>> = {
  "github-token": [
    [`GITHUB_TOKEN: ${S.github} (ok)`, S.github],
    [`remote: https://x-access-token:${S.github}@github.com/o/r`, S.github],
    [`token ${S.githubFine} used`, S.githubFine],
  ],
  "gitlab-token": [[`export CI_TOKEN_X ${S.gitlab}`, S.gitlab]],
  "aws-access-key-id": [[`aws_access_key_id = ${S.awsId}`, S.awsId]],
  "aws-secret-access-key": [[`aws configure set aws_secret_access_key ${S.awsSecret}`, S.awsSecret]],
  "anthropic-key": [[`key is ${S.anthropic}.`, S.anthropic]],
  "openai-key": [[`using ${S.openai} now`, S.openai]],
  "slack-token": [[`bot ${S.slack}`, S.slack]],
  "stripe-key": [[`stripe: ${S.stripe}`, S.stripe]],
  "google-api-key": [[`maps key ${S.google}`, S.google]],
  "npm-token": [[`//registry.npmjs.org/:_authToken ${S.npm}`, S.npm]],
  jwt: [[`cookie session=${S.jwt}; Path=/`, S.jwt]],
  "private-key": [[`"pem": "-----BEGIN RSA PRIVATE KEY-----\\n${S.apiKey}\\n-----END RSA PRIVATE KEY-----\\n"`, `\\n${S.apiKey}\\n`]],
  "url-credentials": [[`DATABASE_URL=postgres://app:${S.urlPassword}@db.internal:5432/app`, S.urlPassword]],
  "authorization-header": [
    [`> Authorization: Bearer ${S.apiKey}`, S.apiKey],
    [`> authorization: Basic ${S.urlPassword}==`, `${S.urlPassword}==`],
  ],
  "user-password-flag": [
    [`curl -s -u bob:${S.urlPassword} https://example.com/`, S.urlPassword],
    [`curl -ubob:${S.urlPassword} x`, S.urlPassword],
    [`wget --user=bob:${S.urlPassword} x`, S.urlPassword],
  ],
  "password-assignment": [
    [`DB_PASSWORD=${S.password}`, S.password],
    [`  "password": "${S.password}",`, S.password],
    [`mysql --password='${S.password}' -u root`, S.password],
    [`PGPASSWORD: hunter22`, "hunter22"],
    // Key names longer than 64 characters on either side of the word (a cap of 64 showed these).
    [`myCompanyProductionDatabasePrimaryReplicaConnectionPoolAdministratorUserPassword=${S.password}`, S.password],
    [`DB_PASSWORD_FOR_THE_PRIMARY_PRODUCTION_DATABASE_CLUSTER_IN_THE_EU_WEST_1_REGION_X=${S.password}`, S.password],
    [`MY_COMPANY_PRODUCTION_DATABASE_PRIMARY_REPLICA_CONNECTION_POOL_ADMIN_PASSWORD=${S.password}`, S.password],
  ],
  "secret-assignment": [
    [`MY_SERVICE_API_KEY=${S.apiKey}`, S.apiKey],
    [`  client_secret: "${S.apiKey}"`, S.apiKey],
    [`export ACME_TOKEN="${S.apiKey}"`, S.apiKey],
    [`auth_key => ${S.apiKey}`, S.apiKey],
    [`{"auth_token_for_the_service_account_used_by_the_nightly_backup_job_of_the_primary_cluster": "${S.apiKey}"}`, S.apiKey],
    [`GITHUB_TOKEN_FOR_THE_RELEASE_WORKFLOW_OF_THE_MONOREPO_PUBLISHING_ALL_THE_PACKAGES_X=${S.apiKey}`, S.apiKey],
  ],
  "private-key-body": [
    [privateKey()[3]!, privateKey()[3]!],
    // Behind cat -n's number, grep -A's file name, a log's time and level.
    [`     4\t${privateKey()[3]!}`, privateKey()[3]!],
    [`key.pem-${privateKey()[3]!}`, privateKey()[3]!],
    [`2026-01-01T00:00:00Z INFO ${privateKey()[3]!}`, privateKey()[3]!],
  ],
};

describe("rules", () => {
  test("every rule has cases here", () => {
    expect(Object.keys(CASES).sort()).toEqual(RULES.map((r) => r.id).sort());
  });

  for (const rule of RULES) {
    test(rule.id, () => {
      for (const [line, secret] of CASES[rule.id]!) {
        // The rule alone finds it (not another rule's doing).
        const alone = new Masker({ rules: [rule] }).maskLine(line);
        expect({ line, masked: alone.text }).toEqual({ line, masked: line.replace(secret, "*".repeat(secret.length)) });
        expectMasked(line, secret);
      }
    });
  }
});

describe("glued (issue 38, class 1)", () => {
  test("a well-known prefix needs no boundary on its left; the others begin after an escape written out or a colour escape", () => {
    for (const [line, secret] of [
      [`{"detail":"bad credentials\\n${S.github}"}`, S.github],
      [`x${S.github}`, S.github],
      [`\x1b[33m${S.githubFine}\x1b[0m`, S.githubFine],
      [`"key:\\t${S.openai}"`, S.openai],
      [`key id${S.awsId}`, S.awsId],
      [`b=${S.slack}`, S.slack],
      [`"\\npostgres://app:${S.urlPassword}@db"`, S.urlPassword],
      [`\\033[1mBearer ${S.apiKey}`, S.apiKey],
    ] as const)
      expectMasked(line, secret);
  });

  test("a digest behind its name is not a key's body line", () => {
    const line = `integrity sha512-${"Ab1".repeat(28)}==`;
    expect(mask(line).text).toBe(line);
  });
});

describe("never masked", () => {
  const keys = ["API_KEY", "token", "SECRET", "password", "auth", "cache_key"];
  for (const [what, value] of Object.entries(KEEP)) {
    test(`${what}, alone and after secret-sounding keys`, () => {
      const lines = [
        value,
        `commit ${value}`,
        `${value}  package.tgz`,
        ...keys.map((k) => `${k}=${value}`),
        ...keys.map((k) => `${k}: ${value}`),
        ...keys.map((k) => `"${k}": "${value}"`),
        `Authorization: Bearer ${value}`,
      ];
      for (const line of lines) expect({ line, masked: mask(line).text }).toEqual({ line, masked: line });
    });
  }

  test("words after secret-sounding keys that are not secrets", () => {
    for (const line of [
      "TOKEN_TYPE=bearer",
      "secrets: 3 found",
      "author: Jane Doe <jane@example.com>",
      "tokens=12345678",
      "password: ${DB_PASSWORD}",
      "API_KEY=<your key here>",
      "AWS_SECRET_ACCESS_KEY=xxxxxxxxxxxxxxxxxxxx",
      "passwd: ********",
      "https://github.com/oven-sh/bun/releases/download/bun-v1.1.0/bun-linux-x64.zip",
      "git@github.com:owner/repo.git",
      "npm_config_cache=/home/u/.npm",
      'a window without an LF ("Password: \\x1b]0;ti" then "tle")',
    ]) {
      expect({ line, masked: mask(line).text }).toEqual({ line, masked: line });
    }
  });
});

describe("masker", () => {
  test("a PEM key's body lines are masked between its BEGIN and END lines, the markers kept", () => {
    const lines = privateKey();
    const state = { inKey: false };
    const masked = lines.map((l) => masker.maskLine(l, state).text);
    expect(masked[0]).toBe(lines[0]!);
    expect(masked.at(-1)).toBe(lines.at(-1)!);
    for (let i = 1; i < lines.length - 1; i++) expect(masked[i]).toBe("*".repeat(lines[i]!.length));
    expect(state.inKey).toBe(false);
  });

  test("an allow-listed value is kept", () => {
    const allowing = new Masker({ rules: RULES, allow: [/^ghp_/] });
    expect(allowing.maskLine(`t ${S.github}`).count).toBe(0);
  });

  test("counts each value once, however many rules found it", () => {
    expect(mask(`GITHUB_TOKEN=${S.github} OPENAI_API_KEY=${S.openai}`).count).toBe(2);
  });

  test("the key-name rules look at a long run of name characters once (no quadratic cost)", () => {
    // 64 KB runs: a base64url blob, a secret word repeated, a word then separators. A name looked
    // for from every `-` or `_` to the run's end took 1.5 s on the first; each takes a few ms now.
    const random = seededRandom(64);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const blob = Array.from({ length: 65536 }, () => alphabet[Math.floor(random() * 64)]).join("");
    const keyed = new Masker({ rules: RULES.filter((r) => r.id === "password-assignment" || r.id === "secret-assignment") });
    for (const run of [blob, `password${blob}`, "pwd_".repeat(16384), "token-".repeat(10923), `auth${"_".repeat(65536)}`]) {
      const started = performance.now();
      expect(keyed.maskLine(run).count).toBe(0);
      // A loaded machine's margin: the quadratic look took 300 times this.
      expect(performance.now() - started).toBeLessThan(500);
    }
  });
});

describe("bytes", () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  const dec = (b: Uint8Array) => new TextDecoder().decode(b);

  test("a secret coloured in the middle: its visible bytes masked, the escape codes kept", () => {
    const raw = `key \x1b[1m${S.github.slice(0, 10)}\x1b[0;32m${S.github.slice(10)}\x1b[0m done\r\n`;
    const { bytes, ranges } = maskBytes(enc(raw), masker);
    expect(ranges.length).toBe(1);
    expect(bytes.length).toBe(enc(raw).length);
    expect(dec(bytes)).toBe(`key \x1b[1m${"*".repeat(10)}\x1b[0;32m${"*".repeat(S.github.length - 10)}\x1b[0m done\r\n`);
  });

  test("a command line in a shell's OSC mark is masked, the mark kept", () => {
    const raw = `\x1b]633;E;export OPENAI_API_KEY=${S.openai};abc\x07ok\n`;
    const out = dec(maskBytes(enc(raw), masker).bytes);
    expect(leakedPieces(out, S.openai)).toEqual([]);
    expect(out.startsWith("\x1b]633;E;export OPENAI_API_KEY=")).toBe(true);
    expect(out.endsWith(";abc\x07ok\n")).toBe(true);
  });

  test("progress redraws: every copy masked", () => {
    const raw = `\rupload ${S.npm} 10%\x1b[K\rupload ${S.npm} 55%\x1b[K\n`;
    const out = dec(maskBytes(enc(raw), masker).bytes);
    expect(leakedPieces(out, S.npm)).toEqual([]);
    expect(out).toContain("55%");
  });

  test("a control drawn as nothing inside a token (NUL, BEL, SO/SI, DEL, US): one range, the controls kept", () => {
    for (const c of ["\x00", "\x07", "\x0e\x0f", "\x7f", "\x1f", "\x00\x1b[1m\x7f"]) {
      const raw = `key ${S.github.slice(0, 14)}${c}${S.github.slice(14)} done\n`;
      const { bytes, ranges } = maskBytes(enc(raw), masker);
      expect({ c, ranges }).toEqual({ c, ranges: [{ start: 4, end: 4 + S.github.length + c.length }] });
      expect(dec(bytes)).toBe(`key ${"*".repeat(14)}${c}${"*".repeat(S.github.length - 14)} done\n`);
    }
  });

  test("a secret the controls end is still masked as the bytes hold it (the look with them kept)", () => {
    // Drawn as AKIA… plus one more letter (no key), but the bytes hold the key: both looks are made.
    const raw = `id ${S.awsId}\x00Z and ${S.github.slice(0, 20)}\x07${S.github.slice(20)}\n`;
    const { bytes, ranges } = maskBytes(enc(raw), masker);
    expect(ranges.length).toBe(2);
    expect(leakedPieces(dec(bytes), S.awsId, 8)).toEqual([]);
    expect(leakedPieces(dec(bytes), S.github, 8)).toEqual([]);
  });

  test("no secret: the same array back", () => {
    const raw = enc(`commit ${KEEP.commit}\n${KEEP.uuid}\n`);
    expect(maskBytes(raw, masker).bytes).toBe(raw);
  });
});
