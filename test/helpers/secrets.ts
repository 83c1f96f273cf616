/**
 * Secret-shaped strings for the redaction tests, made up at run time (a fixed seed), so no token
 * of any real format sits in the repository for a scanner to flag.
 */
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A deterministic generator: the same strings every run. */
export function randomText(seed: number): (length: number, alphabet?: string) => string {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
  return (length, alphabet = ALNUM) => Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
}

const r = randomText(24);
const upper32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const b64 = `${ALNUM}+/`;

/** One of each kind. */
export const SECRETS = {
  github: `ghp_${r(36)}`,
  githubFine: `github_pat_${r(22)}_${r(59)}`,
  gitlab: `glpat-${r(20)}`,
  awsId: `AKIA${r(16, upper32)}`,
  awsSecret: `${r(18, b64)}/${r(21, b64)}`,
  openai: `sk-proj-${r(48)}`,
  anthropic: `sk-ant-api03-${r(40)}`,
  slack: `xoxb-${r(12, "0123456789")}-${r(24)}`,
  stripe: `sk_live_${r(24)}`,
  google: `AIza${r(35)}`,
  npm: `npm_${r(36)}`,
  jwt: `eyJ${r(20)}.eyJ${r(30)}.${r(43)}`,
  password: `Pw-${r(13)}!`,
  urlPassword: `${r(14)}`,
  apiKey: `${r(32)}`,
};

/** A PEM private key's lines (its body random base-64 in 64-character lines). */
export function privateKey(seed = 7): string[] {
  const k = randomText(seed);
  const body = k(1190, b64);
  const lines = ["-----BEGIN PRIVATE KEY-----"];
  for (let i = 0; i < body.length; i += 64) lines.push(body.slice(i, i + 64));
  lines[lines.length - 1] += "==";
  lines.push("-----END PRIVATE KEY-----");
  return lines;
}

/** Every 12-character piece of `secret` found in `text` (empty when none is). */
export function leakedPieces(text: string, secret: string, size = 12): string[] {
  const found: string[] = [];
  for (let i = 0; i + size <= secret.length; i++) if (text.includes(secret.slice(i, i + size))) found.push(secret.slice(i, i + size));
  return found;
}

/** Things agents need, which no rule may mask. */
export const KEEP = {
  commit: "3f9a1c2e8b7d6f5a4c3b2a1908f7e6d5c4b3a291",
  shortCommit: "3f9a1c2",
  sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  uuid: "123e4567-e89b-42d3-a456-426614174000",
  digest: "sha256:2d4e8a1f0c9b7e6d5a4f3e2d1c0b9a8f7e6d5c4b3a29180f7e6d5c4b3a291807",
  path: "/home/user/.cache/node_modules/.bin/tsc",
  version: "v1.22.3-beta.1",
};
