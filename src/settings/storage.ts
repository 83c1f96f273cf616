/**
 * The `storage` key of the settings file (config-file.ts): how much disk the sessions may take.
 * `max_total`, `keep_free`, `max_session` are sizes ("20MB", "4GiB", a plain number of bytes) or
 * a percentage of the state root's filesystem ("10%"); `compress` is true or false (default false).
 * Each absent key keeps its default
 * (core/store/disk.ts). A bad value is a one-line usage error naming the key (exit 2).
 */
import { DerunError } from "../core/errors.ts";
import { DEFAULT_STORAGE, type DiskSize, type StoragePolicy } from "../core/store/disk.ts";
import { configFilePath, readConfig } from "./config-file.ts";

type Env = Readonly<Record<string, string | undefined>>;

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1024,
  kb: 1000,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1000 ** 4,
  tib: 1024 ** 4,
};

const KEYS = { max_total: "maxTotal", keep_free: "keepFree", max_session: "maxSession" } as const;

/** The storage policy the settings file asks for (defaults where it says nothing). */
export function readStoragePolicy(env: Env = process.env): StoragePolicy {
  return parseStorage(readConfig(env).storage, configFilePath(env));
}

/** `value` (the `storage` key's) as a policy; `file` names where it came from in errors. */
export function parseStorage(value: unknown, file: string): StoragePolicy {
  if (value === undefined) return DEFAULT_STORAGE;
  const bad = (key: string, why: string) => new DerunError("usage", `${file}: storage.${key} ${why}`);
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new DerunError("usage", `${file}: storage is not a JSON object`);
  const policy: { -readonly [K in (typeof KEYS)[keyof typeof KEYS]]: DiskSize } = { ...DEFAULT_STORAGE };
  let compress: boolean | undefined;
  for (const [key, raw] of Object.entries(value)) {
    if (key === "compress") {
      if (typeof raw !== "boolean") throw bad(key, `must be true or false, got ${JSON.stringify(raw) ?? typeof raw}`);
      compress = raw;
      continue;
    }
    if (!Object.hasOwn(KEYS, key)) throw bad(key, `is not a setting (known: ${[...Object.keys(KEYS), "compress"].join(", ")})`);
    const size = parseSize(raw);
    if (typeof size === "string") throw bad(key, size);
    if (key === "keep_free" && size.percent !== undefined && size.percent >= 100) throw bad(key, "must be under 100%");
    if (key !== "keep_free" && (size.bytes === 0 || size.percent === 0)) throw bad(key, "must be more than 0");
    policy[KEYS[key as keyof typeof KEYS]] = size;
  }
  return compress === undefined ? policy : { ...policy, compress };
}

/** A size, or why it is not one (a short phrase). */
export function parseSize(raw: unknown): DiskSize | string {
  if (typeof raw === "number")
    return Number.isSafeInteger(raw) && raw >= 0 ? { bytes: raw } : `must be a whole number of bytes, got ${raw}`;
  if (typeof raw !== "string") return `must be a size such as "20MB", "4GiB" or "10%", got ${JSON.stringify(raw) ?? typeof raw}`;
  const shown = JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}...` : raw);
  const percent = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(raw);
  if (percent) {
    const value = Number(percent[1]);
    return value <= 100 ? { percent: value } : `must be at most 100%, got ${shown}`;
  }
  const size = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/.exec(raw);
  const unit = size ? UNITS[size[2]!.toLowerCase()] : undefined;
  if (!size || unit === undefined) return `must be a size such as "20MB", "4GiB" or "10%", got ${shown}`;
  const bytes = Math.floor(Number(size[1]) * unit);
  return Number.isSafeInteger(bytes) ? { bytes } : `is too large, got ${shown}`;
}
