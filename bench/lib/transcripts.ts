/**
 * Synthetic terminal transcripts for the view figures, in the shapes real ones take: a plain log
 * on a pipe, a build log on a PTY (CRLF, warnings with file:line), a colour test run (escape codes
 * as dense as bun test's own), progress bars redrawn with `\r` and `ESC[K`, a full-screen program
 * repainting in place, and a mix of them all.
 */

export type TranscriptKind = "plain" | "build" | "colour" | "progress" | "tui" | "mixed";

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** The `i`-th piece of a transcript of `kind`: a line, a few lines, or a frame. */
function piece(kind: Exclude<TranscriptKind, "mixed">, i: number): string {
  switch (kind) {
    case "plain":
      return (
        `2024-05-01T12:${pad(i % 60, 2)}:${pad(i % 59, 2)}.${pad(i % 1000, 3)}Z INFO  http.server request id=${i} method=GET ` +
        `path=/api/v1/items/${i * 7} status=200 duration_ms=${i % 97}\n`
      );
    case "build":
      return i % 50 === 7
        ? `src/modules/module_${i % 300}.c:${i % 900}:${i % 80}: warning: unused variable 'tmp_${i}' [-Wunused-variable]\r\n`
        : `  CC       src/modules/module_${i % 300}.o\r\n`;
    case "colour":
      return i % 40 === 39
        ? `\x1b[0m\x1b[31m✗\x1b[0m\x1b[0m\x1b[1m suite ${i % 17} > rejects input ${i}\x1b[0m ` +
            `\x1b[0m\x1b[2m[${i % 9}.${pad(i % 100, 2)}ms\x1b[0m\x1b[2m]\x1b[0m\r\n` +
            `\x1b[0m\x1b[31merror\x1b[0m\x1b[2m:\x1b[0m ` +
            `\x1b[1m\x1b[2mexpect(\x1b[0m\x1b[31mreceived\x1b[0m\x1b[2m).\x1b[0mtoBe\x1b[2m(\x1b[0m\x1b[32mexpected\x1b[0m\x1b[2m)` +
            `\x1b[0m\r\n` +
            `Expected: \x1b[32m${i}\x1b[0m\r\nReceived: \x1b[31m${i + 1}\x1b[0m\r\n`
        : `\x1b[0m\x1b[32m✓\x1b[0m\x1b[0m\x1b[1m suite ${i % 17} > handles case number ${i}\x1b[0m ` +
            `\x1b[0m\x1b[2m[${i % 9}.${pad(i % 100, 2)}ms\x1b[0m\x1b[2m]\x1b[0m\r\n`;
    case "progress": {
      const percent = i % 101;
      const bar = "#".repeat(Math.floor(percent / 2.5)).padEnd(40, " ");
      return (
        `\rReceiving objects: ${String(percent).padStart(3)}% (${percent * 37}/3737) [${bar}] ${(i % 900) / 10} ` +
        `MiB/s\x1b[K${percent === 100 ? ", done.\r\n" : ""}`
      );
    }
    case "tui": {
      const rows = [
        `top - 12:${pad(i % 60, 2)}:00 up 3 days,  load average: 0.${i % 100}`,
        `Tasks: ${200 + (i % 9)} total,   1 running`,
        "",
      ];
      for (let r = 0; r < 26; r++)
        rows.push(
          `${String(1000 + r).padStart(7)} root      20   0  ${pad((i * r) % 99999, 5)} S  ${(i + r) % 100}.0   0.${r}   ` +
            `0:0${r % 10}.00 process-${r}`,
        );
      return `\x1b[H${rows.map((row) => `${row}\x1b[K`).join("\r\n")}\x1b[J`;
    }
  }
}

const MIX: ReadonlyArray<Exclude<TranscriptKind, "mixed">> = ["plain", "plain", "build", "colour", "colour", "progress"];

/** About `size` bytes of `kind` as text (pieces whole). */
export function transcriptText(kind: TranscriptKind, size: number, first = 0): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = first; length < size; i++) {
    const s = kind === "mixed" ? section(MIX[i % MIX.length]!, i) : piece(kind, i);
    parts.push(s);
    length += s.length;
  }
  return parts.join("");
}

/** A run of one kind inside a mixed transcript (~32 KiB, a TUI section a few frames). */
function section(kind: Exclude<TranscriptKind, "mixed">, i: number): string {
  const parts: string[] = [];
  for (let k = 0, length = 0; length < 32 * 1024; k++) {
    // The mix is one PTY session: its plain log lines end in CRLF too.
    const s = kind === "plain" ? piece(kind, i * 1000 + k).replace(/\n$/, "\r\n") : piece(kind, i * 1000 + k);
    parts.push(s);
    length += s.length;
  }
  return parts.join("");
}

/** About `size` bytes of `kind`. */
export const transcript = (kind: TranscriptKind, size: number): Uint8Array => new TextEncoder().encode(transcriptText(kind, size));
