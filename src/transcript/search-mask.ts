/**
 * Whether a search pattern could match a mask's `*` where the recorded line has another character.
 * A pattern that cannot (letters, digits, `.`, `\w`, `\d`, `\s`, quantifiers, anchors) matches a
 * masked line only where it matches the line as recorded, since masks keep lengths; then search
 * need mask only the lines that match as recorded. One that can (`\*`, `\W`, `\S`, `\D`, `[^…]`,
 * a class holding `*`, `\b`, lookarounds, back-references) gets every line masked first.
 */
import type { SearchPattern } from "../views/search.ts";

const MASK_ATOM = /\\\*|\\[WSDBbPpk1-9]|\[\^|\\x2[aA]|\\u\{?0*2[aA]|\\0?52|\(\?<?[=!]|\[[^\]]*\*/;

export const canMatchMask = (pattern: SearchPattern): boolean =>
  pattern.literal !== undefined ? pattern.literal.includes("*") : MASK_ATOM.test(pattern.source);
