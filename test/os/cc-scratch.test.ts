/**
 * Where derun's TinyCC compile writes: Bun's `cc` puts a dozen headers under `$TMPDIR/bun-cc-0/` at
 * each call, and on a disk-backed /tmp that waited on the disk at every start under a job-control
 * shell. Real compiles in a child process of their own (its C environment is what is looked at).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statfsSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Pointer, toBuffer } from "bun:ffi";
import { cEnv, withCEnv } from "../../src/os/c-env.ts";
import { libcEnv } from "../../src/os/libc.ts";
import { ccScratchDir, inCcScratch, privateDirIn } from "../../src/os/cc-scratch.ts";
import { LEADER_SOURCE } from "../../src/pty/leader-source.ts";
import { NATIVE_PUMP_SOURCE } from "../../src/io/native-pump-source.ts";

const linux = process.platform === "linux";
const onTmpfs = (dir: string) => statfsSync(dir).type === 0x01021994;
const tmpOnDisk = linux && !onTmpfs(tmpdir());
const uid = process.geteuid?.() ?? -1;
const root = uid === 0;
const shmUsable = linux && existsSync("/dev/shm") && onTmpfs("/dev/shm");

describe.skipIf(process.platform === "win32")("the C environment for one call", () => {
  test("a variable set for the call and gone after; one set before gets its old bytes back", () => {
    const name = `DERUN_CENV_TEST_${process.pid}`;
    expect(cEnv(name)).toBeUndefined();
    const inner = withCEnv(name, "outer", () => {
      expect(cEnv(name)).toBe("outer");
      return withCEnv(name, "inner é", () => cEnv(name));
    });
    expect(inner).toBe("inner é");
    expect(cEnv(name)).toBeUndefined();
    // process.env is not the C environment: the reason for the module.
    expect(process.env[name]).toBeUndefined();
  });

  test("an empty value and one that is not UTF-8 come back byte for byte", () => {
    const name = `DERUN_CENV_BYTES_${process.pid}`;
    const c = libcEnv();
    const key = Buffer.from(`${name}\0`);
    const raw = (): Buffer | null => {
      const p = c.getenv(key);
      if (p === null) return null;
      const n = Number(c.strlen(p as Pointer));
      return n === 0 ? Buffer.alloc(0) : Buffer.from(toBuffer(p, 0, n));
    };
    for (const before of [Buffer.alloc(0), Buffer.from([0x2f, 0xff, 0xfe, 0x74, 0xc3])]) {
      c.setenv(key, Buffer.concat([before, Buffer.of(0)]), 1);
      expect(withCEnv(name, "/dev/shm/x", () => cEnv(name))).toBe("/dev/shm/x");
      expect(raw()).toEqual(before);
    }
    c.unsetenv(key);
    expect(raw()).toBeNull();
  });
});

describe.skipIf(!linux)("TinyCC's scratch directory", () => {
  test.skipIf(!tmpOnDisk || !shmUsable)("in memory when the temporary directory is on a disk", () => {
    const own = mkdtempSync("/dev/shm/derun-xdg-");
    try {
      const shm = `/dev/shm/derun-cc-${uid}`;
      expect(ccScratchDir({ XDG_RUNTIME_DIR: own })).toBe(join(own, `derun-cc-${uid}`));
      // Not a memory-backed one, or not a path: the next candidate.
      expect(ccScratchDir({ XDG_RUNTIME_DIR: tmpdir() })).toBe(shm);
      expect(ccScratchDir({ XDG_RUNTIME_DIR: "relative" })).toBe(shm);
      expect(ccScratchDir({})).toBe(shm);
      expect(lstatSync(shm).mode & 0o777).toBe(0o700);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  test.skipIf(!tmpOnDisk || !shmUsable)("a compile that fails in memory (full, say) runs again in the temporary directory", () => {
    const tried: string[] = [];
    const got = inCcScratch((dir) => {
      tried.push(dir);
      if (dir !== tmpdir()) throw new Error("ENOSPC: no space left on device");
      return "compiled";
    });
    expect(got).toBe("compiled");
    expect(tried).toEqual([ccScratchDir(), tmpdir()]);
    expect(tried[0]).not.toBe(tmpdir());
    expect(cEnv("TMPDIR")).toBe(process.env.TMPDIR);
  });

  test.skipIf(tmpOnDisk)("the temporary directory itself when it is in memory already", () => {
    expect(ccScratchDir({})).toBe(tmpdir());
  });

  // Both of derun's C parts: the session leader and the native output pump.
  const compiled = [
    { name: "the leader", script: 'import { leaderUnavailable as why } from "./src/pty/leader.ts";' },
    { name: "the native pump", script: 'import { nativePumpUnsupported as why } from "./src/io/native-pump.ts";' },
  ];
  test.skipIf(!tmpOnDisk || !shmUsable).each(compiled)(
    "$name compiles with Bun's headers there, and TMPDIR is as before after",
    async ({ script: load }) => {
      const own = mkdtempSync("/dev/shm/derun-xdg-");
      const diskTmp = mkdtempSync(join(tmpdir(), "derun-tmp-"));
      try {
        mkdirSync(join(diskTmp, "t"));
        const script = [
          load,
          'import { cEnv } from "./src/os/c-env.ts";',
          'console.log(JSON.stringify({ why: why() ?? null, tmpdir: cEnv("TMPDIR") ?? null }));',
        ].join("\n");
        const proc = Bun.spawn([process.execPath, "-e", script], {
          cwd: join(import.meta.dir, "../.."),
          env: { ...process.env, XDG_RUNTIME_DIR: own, TMPDIR: join(diskTmp, "t") },
          stdout: "pipe",
          stderr: "pipe",
        });
        const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
        expect(err).toBe("");
        expect(JSON.parse(out)).toEqual({ why: null, tmpdir: join(diskTmp, "t") });
        expect(existsSync(join(own, `derun-cc-${uid}`, `bun-cc-${uid}`, "stdbool.h"))).toBe(true);
        expect(existsSync(join(diskTmp, "t", "bun-cc-0"))).toBe(false);
      } finally {
        rmSync(own, { recursive: true, force: true });
        rmSync(diskTmp, { recursive: true, force: true });
      }
    },
  );
});

/**
 * Another user's directory, or one they may write, must never hold what TinyCC reads: they could
 * swap derun's source for their own between its write and the compile (their C run as this user).
 */
describe.skipIf(!linux || !shmUsable)("TinyCC's scratch directory is ours alone", () => {
  const inShm = (run: (dir: string) => void) => {
    const dir = mkdtempSync("/dev/shm/derun-base-");
    try {
      run(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  test.skipIf(!root)("an XDG_RUNTIME_DIR of another user (kept across su) is passed over", () => {
    inShm((base) => {
      chownSync(base, 65534, 65534);
      chmodSync(base, 0o777);
      expect(privateDirIn(base)).toBeUndefined();
      expect(ccScratchDir({ XDG_RUNTIME_DIR: base }).startsWith(base)).toBe(false);
      chmodSync(base, 0o700);
      expect(privateDirIn(base)).toBeUndefined();
    });
  });

  test("a base others may write without the sticky bit is passed over", () => {
    inShm((base) => {
      chmodSync(base, 0o777);
      expect(privateDirIn(base)).toBeUndefined();
      chmodSync(base, 0o700);
      expect(privateDirIn(base)).toBe(join(base, `derun-cc-${uid}`));
    });
  });

  test("a derun-cc directory planted as a link, with a loose mode, or by another user is not used", () => {
    inShm((base) => {
      const planted = join(base, `derun-cc-${uid}`);
      const elsewhere = mkdtempSync("/dev/shm/derun-elsewhere-");
      try {
        symlinkSync(elsewhere, planted);
        expect(privateDirIn(base)).toBeUndefined();
        rmSync(planted);
        mkdirSync(planted, { mode: 0o755 });
        chmodSync(planted, 0o755);
        expect(privateDirIn(base)).toBeUndefined();
        if (root) {
          chmodSync(planted, 0o700);
          chownSync(planted, 65534, 65534);
          expect(privateDirIn(base)).toBeUndefined();
        }
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    });
  });

  test("the leader's and the pump's sources include no header: whatever is in Bun's header directory is never compiled in", () => {
    expect(LEADER_SOURCE).not.toMatch(/^\s*#\s*include/m);
    expect(NATIVE_PUMP_SOURCE).not.toMatch(/^\s*#\s*include/m);
  });
});
