/**
 * The built-in transports, as a literal map of lazy imports: `bun build --compile` sees every
 * `import()` and embeds the module, while none of them is loaded until chosen (windows-conpty's
 * native library must never be touched on POSIX). Their names are the recorded `transport_mode`s.
 */
import type { Transport } from "../core/transport.ts";

export const builtinTransports = {
  "posix-pty": () => import("./posix-pty/index.ts"),
  "windows-conpty": () => import("./windows-conpty/index.ts"),
  pipe: () => import("./pipe/index.ts"),
} as const satisfies Record<string, () => Promise<{ default: Transport }>>;

export type BuiltinTransportName = keyof typeof builtinTransports;

export const isBuiltinTransport = (name: string): name is BuiltinTransportName => Object.hasOwn(builtinTransports, name);
