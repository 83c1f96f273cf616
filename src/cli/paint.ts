/** Colour for people: only where the stream is a terminal and NO_COLOR is unset or empty (no-color.org). */
import { isatty } from "node:tty";

/** Whether text written to `fd` may carry colour. */
export const colourOn = (fd: 1 | 2): boolean => isatty(fd) && !process.env.NO_COLOR;

const SGR = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  magenta: [35, 39],
  cyan: [36, 39],
  underline: [4, 24],
} as const;
export type Style = keyof typeof SGR;

/** `text` in `style` when `on`, else unchanged. */
export const paint = (on: boolean, style: Style, text: string): string =>
  on ? `\x1b[${SGR[style][0]}m${text}\x1b[${SGR[style][1]}m` : text;
