/**
 * `--retention` values: Go-style durations (`24h`, `90m`, `1h30m`, `3600s`, `1.5h`) or a bare
 * number of seconds. meta.json keeps retention in whole seconds, so anything that is not a
 * positive whole number of seconds (`500ms`, `1500ms`, `0s`) is refused rather than rounded.
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
const NANOS_PER_SECOND = NANOS_PER_UNIT.s!;
const COMPONENT = /(\d+)(?:\.(\d+))?(ns|us|µs|ms|s|m|h)/gy;
/** Keeps `retention_seconds` a safe integer and `started_at + retention` a valid date. */
const MAX_SECONDS = 100n * 365n * 24n * 3600n;

/** Parse a retention duration to whole seconds, or throw DerunError("usage") saying why. */
export function parseRetentionSeconds(text: string): number {
  const bad = (why: string) => new DerunError("usage", `invalid --retention ${shown(text)}: ${why}`);
  if (/^\d+$/.test(text)) return checked(BigInt(text) * NANOS_PER_SECOND);

  let nanos = 0n;
  let consumed = 0;
  COMPONENT.lastIndex = 0;
  for (let match = COMPONENT.exec(text); match; match = COMPONENT.exec(text)) {
    const [whole, integer = "0", fraction = "", unit = "s"] = match;
    const perUnit = NANOS_PER_UNIT[unit]!;
    const scale = 10n ** BigInt(fraction.length);
    const fractionNanos = BigInt(fraction || "0") * perUnit;
    if (fractionNanos % scale !== 0n) throw bad("must be a whole number of seconds");
    nanos += BigInt(integer) * perUnit + fractionNanos / scale;
    consumed += whole.length;
  }
  if (consumed === 0 || consumed !== text.length) throw bad("expected a duration such as 3600, 90m or 24h");
  return checked(nanos);

  function checked(total: bigint): number {
    if (total <= 0n) throw bad("must be positive");
    if (total % NANOS_PER_SECOND !== 0n) throw bad("must be a whole number of seconds");
    const seconds = total / NANOS_PER_SECOND;
    if (seconds > MAX_SECONDS) throw bad("must be at most 100 years");
    return Number(seconds);
  }
}
