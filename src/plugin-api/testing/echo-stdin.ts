/**
 * Part of the conformance suite: runs `cat` through the transport default-exported by the module
 * named in argv[2] and writes what it received to this process's stdout, so the suite can give this
 * process a real stdin (a file) and check that the transport's child read it.
 */
import type { Transport } from "../index.ts";

const module = process.argv[2];
if (module === undefined) throw new Error("usage: echo-stdin.ts <transport module>");
const transport: Transport = (await import(module)).default;
const child = await transport.open(["cat"], {
  cwd: process.cwd(),
  env: process.env,
  onOutput: (_channel, bytes) => {
    process.stdout.write(bytes.slice());
  },
});
const exit = await child.exited;
process.exitCode = exit.kind === "exited" ? exit.code : 1;
