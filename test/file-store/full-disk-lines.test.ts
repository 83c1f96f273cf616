/**
 * events.jsonl and commands.jsonl on a disk that fills and then frees up: a line that did not go in
 * whole must not leave a torn line that glues onto the next one (readers stop at a line that does
 * not parse, and would hide every later record). A real 64 KiB tmpfs, where mounting is allowed.
 */
import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import type { SessionWriter } from "../../src/core/store.ts";
import { sessionOptions } from "../helpers/store.ts";

/** A 64 KiB tmpfs, or why there cannot be one here. */
function mountTinyTmpfs(): { path: string; skip?: string } & Disposable {
  const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "derun-tmpfs-"));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  if (process.platform !== "linux") return { path: dir, skip: "tmpfs is Linux only", [Symbol.dispose]: remove };
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", dir], { stderr: "pipe" });
  if (mounted.exitCode !== 0)
    return { path: dir, skip: `cannot mount a tmpfs here: ${mounted.stderr.toString().trim()}`, [Symbol.dispose]: remove };
  return {
    path: dir,
    [Symbol.dispose]: () => {
      Bun.spawnSync(["umount", dir]);
      remove();
    },
  };
}

const probe = mountTinyTmpfs();
probe[Symbol.dispose]();
if (probe.skip) console.warn(`skipping: ${probe.skip}`);

/** Fills the disk to its last page, then frees exactly one page: the next file can grow by 4 KiB. */
function leaveOnePage(root: string): string {
  const filler = path.join(root, "filler");
  const fd = fs.openSync(filler, "w");
  const page = Buffer.alloc(4096, 1);
  let pages = 0;
  try {
    for (;;) {
      fs.writeSync(fd, page);
      pages += 1;
    }
  } catch {
    // full
  } finally {
    fs.closeSync(fd);
  }
  fs.truncateSync(filler, (pages - 1) * 4096);
  return filler;
}

/** Appends with `append` until one fails; returns how many went in. */
function appendUntilFull(append: (n: number) => void): number {
  for (let n = 0; n < 10_000; n++) {
    try {
      append(n);
    } catch {
      return n;
    }
  }
  throw new Error("the disk never filled");
}

const command = (number: number) => ({
  number,
  command_line: `echo ${"x".repeat(40)} ${number}`,
  cwd: "/tmp",
  prompt_start: null,
  prompt_end: null,
  output_start: null,
  output_end: null,
  started_at: null,
  ended_at: null,
  exit_code: 0,
  missing: [],
});

describe.skipIf(probe.skip !== undefined)("a line that did not fit is cut back off", () => {
  let disk: ReturnType<typeof mountTinyTmpfs>;
  let writer: SessionWriter | undefined;
  afterEach(async () => {
    await writer?.[Symbol.asyncDispose]();
    writer = undefined;
    disk[Symbol.dispose]();
  });

  test("events.jsonl: the records before the failure and after the disk freed up all read", async () => {
    disk = mountTinyTmpfs();
    const store = openFileStore({ root: disk.path });
    writer = await store.create(sessionOptions({ sessionId: "resizes" }));
    const filler = leaveOnePage(disk.path);
    const fitted = appendUntilFull((n) => writer!.resized({ cols: 80 + (n % 100), rows: 24 }));
    expect(fitted).toBeGreaterThan(10);
    fs.rmSync(filler);
    writer.resized({ cols: 132, rows: 50 });
    const events = await store.events("resizes");
    expect(events).toHaveLength(fitted + 1);
    expect(events.at(-1)).toMatchObject({ cols: 132, rows: 50 });
  });

  test("commands.jsonl: the same", async () => {
    disk = mountTinyTmpfs();
    const store = openFileStore({ root: disk.path });
    writer = await store.create(sessionOptions({ sessionId: "commands", recordsCommands: true }));
    const filler = leaveOnePage(disk.path);
    const fitted = appendUntilFull((n) => writer!.recordCommand(command(n + 1)));
    expect(fitted).toBeGreaterThan(10);
    fs.rmSync(filler);
    writer.recordCommand(command(fitted + 1));
    const commands = await store.commands("commands");
    expect(commands.map((c) => c.number)).toEqual(Array.from({ length: fitted + 1 }, (_, i) => i + 1));
  });
});
