/**
 * Duration flags: Go-style durations (`500ms`, `15s`, `10m`, `24h`, `1h30m`, `1.5h`) or a bare
 * number in the flag's own unit, so that what a plain number meant before units were taken keeps
 * its meaning (`--retention 3600` is seconds, `wait --timeout 15000` milliseconds). A value that is
 * not a whole number of that unit is refused rather than rounded (meta.json keeps retention in
 * whole seconds; a timeout is whole milliseconds).
 */
import { DerunError } from "../core/errors.ts";
import { shown } from "./usage.ts";

const NANOS_PER_UNIT: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const COMPONENT = /(\d+)(?:\.(\d+))?(ns|us|µs|ms|s|m|h)/gy;

/** What a duration flag takes: its unit (of a bare number, and of the result), a bound and examples. */
export interface DurationUnit {
  readonly unit: "ms" | "s";
  /** The longest value taken, in `unit`. */
  readonly max: number;
  /** Said when the value is longer than `max`. */
  readonly tooLong: string;
  /** Examples named when the value is not a duration. */
  readonly examples: string;
}

/** Keeps `retention_seconds` a safe integer and `started_at + retention` a valid date. */
const RETENTION: DurationUnit = {
  unit: "s",
  max: 100 * 365 * 24 * 3600,
  tooLong: "must be at most 100 years",
  examples: "3600, 90m or 24h",
};

/** Parse `text` given to `flag` into whole `spec.unit`s, or throw DerunError("usage") saying why. */
export function parseDuration(flag: string, text: string, spec: DurationUnit): number {
  const bad = (why: string) => new DerunError("usage", `invalid ${flag} ${shown(text)}: ${why}`);
  const perUnit = NANOS_PER_UNIT[spec.unit]!;
  const whole = spec.unit === "s" ? "seconds" : "milliseconds";
  const nanos = /^\d+$/.test(text) ? BigInt(text) * perUnit : sum(text);
  if (nanos === undefined) throw bad(`expected a duration such as ${spec.examples}`);
  if (nanos <= 0n) throw bad("must be positive");
  if (nanos % perUnit !== 0n) throw bad(`must be a whole number of ${whole}`);
  const value = nanos / perUnit;
  if (value > BigInt(spec.max)) throw bad(spec.tooLong);
  return Number(value);
}

/** The nanoseconds of `1h30m`-style text; undefined when it is not one. A fraction finer than 1 ns is refused as not whole. */
function sum(text: string): bigint | undefined {
  let nanos = 0n;
  let consumed = 0;
  COMPONENT.lastIndex = 0;
  for (let match = COMPONENT.exec(text); match; match = COMPONENT.exec(text)) {
    const [all, integer = "0", fraction = "", unit = "s"] = match;
    const perUnit = NANOS_PER_UNIT[unit]!;
    const scale = 10n ** BigInt(fraction.length);
    const fractionNanos = BigInt(fraction || "0") * perUnit;
    // Not a whole nanosecond: 1 ns past whole, so that the caller's check refuses it as not whole.
    nanos += BigInt(integer) * perUnit + fractionNanos / scale + (fractionNanos % scale === 0n ? 0n : 1n);
    consumed += all.length;
  }
  return consumed === 0 || consumed !== text.length ? undefined : nanos;
}

/** Parse a `--retention` duration to whole seconds, or throw DerunError("usage") saying why. */
export const parseRetentionSeconds = (text: string): number => parseDuration("--retention", text, RETENTION);
