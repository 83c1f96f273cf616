/**
 * Installs the pinned MCP clients of {@link CLIENT_PACKAGES} into the cache outside the repository,
 * each into its own npm prefix, in parallel; one already there is kept. Prints one line per client
 * and exits 0 even when one fails (its tests then skip with the reason): a client's registry
 * package is not derun's to keep working.
 *
 *   bun test/cli/mcp-config/install-clients.ts
 */
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { CLIENT_PACKAGES, clientBin, clientPrefix, clientsCacheDir, type ClientKey } from "../../helpers/clients.ts";

async function install(key: ClientKey): Promise<string> {
  const { name, version } = CLIENT_PACKAGES[key];
  if ("bin" in clientBin(key)) return `${name}@${version}: cached`;
  const prefix = clientPrefix(key);
  rmSync(prefix, { recursive: true, force: true }); // a half-finished earlier install
  mkdirSync(prefix, { recursive: true });
  const started = performance.now();
  // npm, as the clients' own documentation installs them; --prefix keeps each in its own tree.
  const proc = Bun.spawn(["npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", prefix, `${name}@${version}`], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited, new Response(proc.stdout).text()]);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (code === 0 && existsSync(join(prefix, "node_modules", ".bin", CLIENT_PACKAGES[key].bin)))
    return `${name}@${version}: installed in ${seconds} s`;
  rmSync(prefix, { recursive: true, force: true });
  const reason = stderr.split("\n").find((line) => line.includes("ERR")) ?? `exit ${code}`;
  return `${name}@${version}: not installed (${reason.slice(0, 200)}); its tests will skip`;
}

mkdirSync(clientsCacheDir(), { recursive: true });
console.log(`MCP clients for the client tests, in ${clientsCacheDir()}`);
for (const line of await Promise.all((Object.keys(CLIENT_PACKAGES) as ClientKey[]).map(install))) console.log(`  ${line}`);
