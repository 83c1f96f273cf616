/**
 * A Windows pseudo console straight through kernel32 (the Go original does the same with
 * x/sys/windows; Microsoft's EchoCon sample is the reference): two pipes, CreatePseudoConsole,
 * and CreateProcessW with the console as PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE. Nothing is loaded
 * but kernel32, so it works from the compiled single-file executable, where bun-pty's embedded
 * DLL could not be loaded (its virtual path means nothing to Windows' loader).
 *
 * The child is started without STARTF_USESTDHANDLES, as in Microsoft's sample: it then takes its
 * standard handles from the pseudo console. (With the flag, as portable-pty sets it, Wine relays
 * none of the child's output; Windows does either way.)
 *
 * Bytes in, bytes out: no decoding on the way (bun-pty handed out strings, which lost every byte
 * that is not UTF-8). Blocking reads and the wait for the exit run on threads (conpty-io.worker.ts).
 */
import { ptr } from "bun:ffi";
import { SpawnError } from "../../plugin-api/index.ts";
import type { PseudoConsole, PseudoConsoleFactory } from "./conpty-child.ts";
import type { ConPtyIoEvent, ConPtyIoRequest } from "./conpty-io.worker.ts";
import { kernel32, wide } from "./kernel32.ts";

const WORKER_URL = new URL("./conpty-io.worker.ts", import.meta.url).href;

const PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE = 0x00020016n;
const EXTENDED_STARTUPINFO_PRESENT = 0x00080000;
const CREATE_UNICODE_ENVIRONMENT = 0x00000400;
/** sizeof(STARTUPINFOEXW) on x64; lpAttributeList is its last field. */
const STARTUPINFOEX_SIZE = 112;
const ATTRIBUTE_LIST_OFFSET = 104;
/** How long close() waits for the console's last output (it normally comes at once). */
const CLOSE_WAIT_MS = 3000;

/** Windows errors of CreateProcessW that are the command's own (as a shell would say 127 / 126). */
const SPAWN_ERRORS: Record<number, SpawnError["errno"]> = { 2: "ENOENT", 3: "ENOENT", 5: "EACCES", 193: "EACCES" };

const coord = (cols: number, rows: number): number => (clamp(cols) | (clamp(rows) << 16)) >>> 0;
const clamp = (n: number): number => Math.max(1, Math.min(0x7fff, Math.floor(n)));

/** Starts `file` with `args` on a new pseudo console of the given size. */
export const spawnPseudoConsole: PseudoConsoleFactory = (file, args, options) => {
  const k = kernel32();
  const opened: bigint[] = [];
  const closeAll = () => opened.splice(0).forEach((handle) => k.CloseHandle(handle));
  const pipe = () => {
    const read = new BigInt64Array(1);
    const write = new BigInt64Array(1);
    if (k.CreatePipe(read, write, null, 0) === 0) throw new Error(`CreatePipe failed: Windows error ${k.GetLastError()}`);
    opened.push(read[0]!, write[0]!);
    return { read: read[0]!, write: write[0]! };
  };
  let pseudoConsole: bigint | undefined;
  try {
    const input = pipe();
    const output = pipe();
    const hpc = new BigInt64Array(1);
    const hr = k.CreatePseudoConsole(coord(options.cols, options.rows), input.read, output.write, 0, hpc);
    if (hr !== 0) throw new Error(`CreatePseudoConsole failed: HRESULT 0x${(hr >>> 0).toString(16)}`);
    pseudoConsole = hpc[0]!;
    // The console holds its own copies of its ends.
    k.CloseHandle(input.read);
    k.CloseHandle(output.write);
    opened.splice(0, opened.length, input.write, output.read);
    const child = createProcess(file, args, options, pseudoConsole);
    opened.push(child.handle);
    return new ConPty(pseudoConsole, child, input.write, output.read);
  } catch (error) {
    // Our ends first: a console that cannot write its output any more does not wait in its close
    // for a reader (ClosePseudoConsole may, before Windows 11 24H2).
    closeAll();
    if (pseudoConsole !== undefined) k.ClosePseudoConsole(pseudoConsole);
    throw error;
  }
};

/** CreateProcessW with the pseudo console attached; the thread handle is closed at once. */
function createProcess(file: string, args: string[], options: Parameters<PseudoConsoleFactory>[2], pseudoConsole: bigint) {
  const k = kernel32();
  const size = new BigUint64Array(1);
  k.InitializeProcThreadAttributeList(null, 1, 0, size); // asks for the size only
  const list = new Uint8Array(Number(size[0]));
  if (k.InitializeProcThreadAttributeList(list, 1, 0, size) === 0)
    throw new Error(`InitializeProcThreadAttributeList failed: Windows error ${k.GetLastError()}`);
  try {
    if (k.UpdateProcThreadAttribute(list, 0, PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE, pseudoConsole, 8n, null, null) === 0) {
      throw new Error(`UpdateProcThreadAttribute failed: Windows error ${k.GetLastError()}`);
    }
    const startup = new Uint8Array(STARTUPINFOEX_SIZE);
    const view = new DataView(startup.buffer);
    view.setUint32(0, STARTUPINFOEX_SIZE, true);
    view.setBigUint64(ATTRIBUTE_LIST_OFFSET, BigInt(ptr(list)), true);
    const info = new Uint8Array(24); // PROCESS_INFORMATION: hProcess, hThread, dwProcessId, dwThreadId
    const commandLine = wide([file, ...args].map(quoteArgument).join(" ")); // writable, as CreateProcessW wants
    const flags = EXTENDED_STARTUPINFO_PRESENT | CREATE_UNICODE_ENVIRONMENT;
    const ok = k.CreateProcessW(
      wide(file),
      commandLine,
      null,
      null,
      0,
      flags,
      environmentBlock(options.env),
      wide(options.cwd),
      startup,
      info,
    );
    if (ok === 0) {
      const code = k.GetLastError();
      const errno = SPAWN_ERRORS[code];
      const message = `cannot start ${file}: CreateProcessW failed with Windows error ${code}`;
      // Any other failure may be the console's (an attribute this Windows refuses): the fallback may run it.
      throw errno ? new SpawnError(errno, message) : new Error(message);
    }
    const infoView = new DataView(info.buffer);
    k.CloseHandle(infoView.getBigInt64(8, true));
    return { handle: infoView.getBigInt64(0, true), pid: infoView.getUint32(16, true) };
  } finally {
    k.DeleteProcThreadAttributeList(list);
  }
}

/** One argument as the Microsoft C runtime parses a command line back into argv (libuv's rules, as Bun.spawn quotes). */
export function quoteArgument(argument: string): string {
  if (argument === "") return '""';
  if (!/[\s"]/.test(argument)) return argument;
  if (!/["\\]/.test(argument)) return `"${argument}"`;
  let quoted = '"';
  let backslashes = 0;
  for (const char of argument) {
    if (char === "\\") {
      backslashes += 1;
      continue;
    }
    // Backslashes are literal unless a quote follows: then each is doubled, and the quote escaped.
    quoted += char === '"' ? `${"\\".repeat(backslashes * 2 + 1)}"` : `${"\\".repeat(backslashes)}${char}`;
    backslashes = 0;
  }
  return `${quoted}${"\\".repeat(backslashes * 2)}"`;
}

/** `K=V\0...\0\0` in UTF-16, sorted case-insensitively as Windows keeps its own. */
export function environmentBlock(env: Record<string, string>): Buffer {
  const entries = Object.entries(env).sort(([a], [b]) =>
    a.toUpperCase() < b.toUpperCase() ? -1 : a.toUpperCase() > b.toUpperCase() ? 1 : 0,
  );
  return Buffer.from(`${entries.map(([key, value]) => `${key}=${value}\0`).join("")}\0`, "utf16le");
}

type Listener<T> = (value: T) => void;

class ConPty implements PseudoConsole {
  readonly pid: number;
  readonly #dataListeners = new Set<Listener<Uint8Array>>();
  readonly #exitListeners = new Set<Listener<{ exitCode: number }>>();
  readonly #reader: Worker;
  readonly #waiter: Worker;
  readonly #eof: Promise<void>;
  #closing: Promise<void> | undefined;

  constructor(
    readonly pseudoConsole: bigint,
    readonly child: { readonly handle: bigint; readonly pid: number },
    readonly input: bigint,
    readonly output: bigint,
  ) {
    this.pid = child.pid;
    let ended!: () => void;
    this.#eof = new Promise((resolve) => (ended = resolve));
    this.#reader = this.#thread({ op: "read", handle: output }, (event) => {
      if ("data" in event) for (const listener of this.#dataListeners) listener(event.data);
      else if ("eof" in event) ended();
    });
    this.#waiter = this.#thread({ op: "wait", handle: child.handle }, (event) => {
      if ("exitCode" in event) for (const listener of this.#exitListeners) listener({ exitCode: event.exitCode });
    });
  }

  #thread(request: ConPtyIoRequest, onEvent: (event: ConPtyIoEvent) => void): Worker {
    const worker = new Worker(WORKER_URL);
    worker.onmessage = (message: MessageEvent<ConPtyIoEvent>) => onEvent(message.data);
    worker.postMessage(request);
    return worker;
  }

  onData(listener: Listener<Uint8Array>) {
    this.#dataListeners.add(listener);
    return { dispose: () => void this.#dataListeners.delete(listener) };
  }

  onExit(listener: Listener<{ exitCode: number }>) {
    this.#exitListeners.add(listener);
    return { dispose: () => void this.#exitListeners.delete(listener) };
  }

  write(bytes: Uint8Array): void {
    if (this.#closing) return;
    const k = kernel32();
    const written = new Uint32Array(1);
    for (let at = 0; at < bytes.length; at += written[0]!) {
      // A failed or empty write: the console is gone.
      if (k.WriteFile(this.input, bytes.subarray(at), bytes.length - at, written, null) === 0 || written[0] === 0) return;
    }
  }

  /** Wine 8 answers E_NOTIMPL; nothing derun can do about it, so the result is not looked at. */
  resize(cols: number, rows: number): void {
    if (!this.#closing) kernel32().ResizePseudoConsole(this.pseudoConsole, coord(cols, rows));
  }

  kill(): void {
    if (!this.#closing) kernel32().TerminateProcess(this.child.handle, 1);
  }

  /**
   * After the exit only (the waiter thread must be done with the process handle): ClosePseudoConsole,
   * which also ends what is still attached to it, then the console's last frame, read up to the
   * pipe's end (bounded: a console that never closes its end is let go).
   */
  close(): Promise<void> {
    return (this.#closing ??= (async () => {
      const k = kernel32();
      k.ClosePseudoConsole(this.pseudoConsole);
      k.CloseHandle(this.input);
      let bound: ReturnType<typeof setTimeout> | undefined;
      const eof = await Promise.race([
        this.#eof.then(() => true),
        new Promise<boolean>((resolve) => (bound = setTimeout(resolve, CLOSE_WAIT_MS, false))),
      ]);
      clearTimeout(bound); // no timer left to keep derun alive
      // A reader still blocked in ReadFile would hang CloseHandle on its pipe: then leave both be.
      if (eof) k.CloseHandle(this.output);
      k.CloseHandle(this.child.handle);
      for (const worker of [this.#reader, this.#waiter]) worker.unref();
      if (eof) this.#reader.terminate();
      this.#waiter.terminate();
    })());
  }
}
