/**
 * Group-write that lets nobody else in: the directory's group is this user's own private group
 * (user private groups, which Fedora, RHEL and Debian give every user, with a umask of 002 on
 * Fedora and RHEL: there `~/.local`, `~/.local/state` and what the user makes are 0775). ssh as
 * Debian builds it allows the same ("user-group-modes"); refusing it would stop derun recording
 * in the default state root of those users.
 */
import * as fs from "node:fs";

/** The lines of a colon-separated database (/etc/group, /etc/passwd), split; none when unreadable. */
function entries(file: string): string[][] {
  try {
    return fs
      .readFileSync(file, "utf8")
      .split("\n")
      .map((line) => line.split(":"));
  } catch {
    return [];
  }
}

/**
 * Whether `gid` is this user's private group: their primary group, with no member but them in
 * /etc/group and no other user's primary group in /etc/passwd. A group found in neither (a
 * directory service) is not taken for one.
 */
export function isPrivateGroup(gid: number): boolean {
  const uid = process.geteuid?.();
  if (uid === undefined || gid !== process.getegid?.()) return false;
  const group = entries("/etc/group").find((fields) => fields.length >= 4 && Number(fields[2]) === gid);
  if (!group) return false;
  // passwd fields: name, password, uid, gid. Looked up by uid: $USER may be unset or stale.
  const users = entries("/etc/passwd").filter((fields) => fields.length >= 4);
  const me = users.find((fields) => Number(fields[2]) === uid)?.[0];
  const members = group[3]!.split(",").map((member) => member.trim());
  if (members.some((member) => member !== "" && member !== me)) return false;
  return !users.some((fields) => Number(fields[2]) !== uid && Number(fields[3]) === gid);
}
