/**
 * Redaction as the read engine applies it: one Redactor per session (the rules, the user's
 * settings, and the fingerprints of the environment the session started with), used wherever
 * text or bytes leave the engine. On unless the person started the reader with --no-redact
 * (configureRedaction); never an argument of a tool.
 */
import type { SessionMeta } from "../core/store.ts";
import { envValuesOf } from "./env-values.ts";
import { maskBytes } from "./mask-bytes.ts";
import { Masker, type LineState, type MaskRange } from "./masker.ts";
import { BUILT_IN, DEFAULT_LIVE_HOLD_MS, liveHoldFromEnv, loadSettings, type RedactSettings } from "./config.ts";

export type { LineState, MaskRange } from "./masker.ts";
export { configPath } from "./config.ts";

export interface Redactor {
  readonly enabled: boolean;
  /**
   * One line (or several joined by LF) with its secrets masked, and how many. `present`: the
   * keywords of a larger text the line is part of ({@link keywordsIn}), to look for no others.
   */
  text(text: string, state?: LineState, present?: ReadonlySet<string>): { text: string; count: number };
  /** The rules' keywords that occur in `text`. */
  keywordsIn(text: string): ReadonlySet<string> | undefined;
  /**
   * The secrets of a text of lines joined by LF, in a few passes over the whole (as the raw masking
   * finds them): what each line masked on its own finds, but for a PEM key's state, which runs on
   * from line to line, and a match across an LF. `present`: the text's keywords ({@link keywordsIn}).
   */
  rangesInLines(text: string, present?: ReadonlySet<string>): MaskRange[];
  /** Raw output bytes with their secrets masked (a copy when any was), and the byte ranges masked. */
  bytes(bytes: Uint8Array, state?: LineState): { bytes: Uint8Array; ranges: MaskRange[] };
  /**
   * The height of the terminal the session started on (meta.json's `rows`), where its absolute
   * cursor positions land: a secret the terminal assembles is looked for as its screen shows it.
   */
  readonly rows?: number;
  /**
   * A digest (hex SHA-256) of everything this redactor's masks depend on besides the bytes: the
   * rules in force (built-in and the person's redact.json, allow-list included), the fingerprints
   * of the session's environment, its height. Work derived from its masks and kept (a mask map on
   * disk) is keyed by it: other rules, another key, derived again. Absent when redaction is off.
   */
  readonly key?: string;
}

const OFF: Redactor = {
  enabled: false,
  text: (text) => ({ text, count: 0 }),
  keywordsIn: () => undefined,
  rangesInLines: () => [],
  bytes: (bytes) => ({ bytes, ranges: [] }),
};

let enabled = true;
let settings: RedactSettings = BUILT_IN;
let holdMs = DEFAULT_LIVE_HOLD_MS;
/** Redactors by session (id and start), most recent last; a server reads a few sessions at a time. */
const cache = new Map<string, Redactor>();
const CACHE_MAX = 64;
let plain: Masker | undefined;
/** The digest of `settings` (made when first asked). */
let settingsKey: string | undefined;

const sha256 = (text: string): string => new Bun.CryptoHasher("sha256").update(text).digest("hex");

/** The rules and allow-list as data (RegExps by source and flags): what the masks depend on. */
const settingsDigest = (): string =>
  (settingsKey ??= sha256(JSON.stringify({ rules: settings.rules, allow: settings.allow.map((r) => [r.source, r.flags]) })));

/**
 * How this process reads: with redaction (the default; the user's settings file read now, so a
 * bad one stops the reader at once) or, when the person said --no-redact, without.
 */
export async function configureRedaction(options: { readonly enabled: boolean; readonly configFile?: string }): Promise<void> {
  holdMs = options.enabled ? liveHoldFromEnv() : 0;
  settings = options.enabled ? await loadSettings(options.configFile) : BUILT_IN;
  enabled = options.enabled;
  cache.clear();
  plain = undefined;
  settingsKey = undefined;
}

/** Whether readers mask (false only after --no-redact). */
export const redactionEnabled = (): boolean => enabled;

/** How long a live read holds back a possible piece of a secret (0: not at all, as without masking). */
export const liveHoldMs = (): number => (enabled ? holdMs : 0);

const redactorOf = (masker: Masker, rows: number | undefined, env: unknown): Redactor => ({
  enabled: true,
  ...(rows === undefined ? {} : { rows }),
  get key() {
    const key = sha256(JSON.stringify([settingsDigest(), env ?? null, rows ?? null]));
    Object.defineProperty(this, "key", { value: key });
    return key;
  },
  text: (text, state, present) => masker.maskText(text, state, present),
  keywordsIn: (text) => masker.keywordsIn(text),
  rangesInLines: (text, present = masker.keywordsIn(text)) =>
    masker.findInLines(text, present.size > 0 ? text.toLowerCase() : text, present, { inKey: false }),
  bytes: (bytes, state) => maskBytes(bytes, masker, state),
});

/** The redactor for a session's output and facts (none without its meta: only when redaction is off). */
export function redactorFor(meta: SessionMeta | undefined): Redactor {
  if (!enabled || meta === undefined) return OFF;
  const fingerprints = (meta as { secret_env?: unknown }).secret_env;
  if (fingerprints === undefined) return redactorOf((plain ??= new Masker(settings)), meta.rows, undefined);
  const key = `${meta.session_id}\0${meta.started_at}`;
  let redactor = cache.get(key);
  if (!redactor) {
    redactor = redactorOf(new Masker({ ...settings, env: envValuesOf(fingerprints) }), meta.rows, fingerprints);
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  } else cache.delete(key);
  cache.set(key, redactor);
  return redactor;
}
