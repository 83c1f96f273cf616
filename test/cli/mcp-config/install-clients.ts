/**
 * Installs the pinned MCP clients of {@link CLIENT_PACKAGES} into the cache outside the repository,
 * each into its own npm prefix; one already there is kept. Node 22 first (a package of the npm
 * registry that ships the binary), then the rest in parallel, those that need Node 22 installed with
 * it first on PATH (their install scripts run on it). Prints one line per client and exits 0 even
 * when one fails (its tests then skip with the reason): a client's registry package is not derun's to
 * keep working. A version no longer pinned is removed (each is hundreds of MB).
 *
 *   bun test/cli/mcp-config/install-clients.ts
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { basename, delimiter, dirname, join } from "node:path";
import { CLIENT_PACKAGES, clientPrefix, clientsCacheDir, installedBin, needsNode22, type ClientKey } from "../../helpers/clients.ts";

async function install(key: ClientKey): Promise<string> {
  const { name, version } = CLIENT_PACKAGES[key];
  if (existsSync(installedBin(key))) return `${name}@${version}: cached`;
  if (needsNode22(key) && !existsSync(installedBin("node22"))) return `${name}@${version}: not installed (no Node 22); its tests will skip`;
  const prefix = clientPrefix(key);
  rmSync(prefix, { recursive: true, force: true }); // a half-finished earlier install
  mkdirSync(prefix, { recursive: true });
  const started = performance.now();
  const path = needsNode22(key) ? `${dirname(installedBin("node22"))}${delimiter}${process.env.PATH ?? ""}` : (process.env.PATH ?? "");
  // npm, as the clients' own documentation installs them; --prefix keeps each in its own tree.
  const proc = Bun.spawn(["npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", prefix, `${name}@${version}`], {
    env: { ...process.env, PATH: path },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited, new Response(proc.stdout).text()]);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (code === 0 && existsSync(installedBin(key))) return `${name}@${version}: installed in ${seconds} s`;
  rmSync(prefix, { recursive: true, force: true });
  const reason = stderr.split("\n").find((line) => line.includes("ERR")) ?? `exit ${code}`;
  return `${name}@${version}: not installed (${reason.slice(0, 200)}); its tests will skip`;
}

mkdirSync(clientsCacheDir(), { recursive: true });
console.log(`MCP clients for the client tests, in ${clientsCacheDir()}`);
console.log(`  ${await install("node22")}`);
const rest = (Object.keys(CLIENT_PACKAGES) as ClientKey[]).filter((key) => key !== "node22");
for (const line of await Promise.all(rest.map(install))) console.log(`  ${line}`);

const pinned = new Set((Object.keys(CLIENT_PACKAGES) as ClientKey[]).map((key) => basename(clientPrefix(key))));
for (const name of readdirSync(clientsCacheDir())) {
  if (pinned.has(name) || !name.includes("@")) continue;
  rmSync(join(clientsCacheDir(), name), { recursive: true, force: true });
  console.log(`  ${name}: removed (no longer pinned)`);
}
