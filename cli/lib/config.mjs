// Where the IDE is and how to prove who we are: CLOUD_IDE_URL and
// CLOUD_IDE_TOKEN when set, else what `cloud-ide login` saved in
// ~/.config/cloud-ide/config.json (mode 600). Behind Cloudflare Access,
// Access's own credentials travel too: a service token (CF_ACCESS_CLIENT_ID
// and CF_ACCESS_CLIENT_SECRET) or a user's `cloudflared access token`
// (CF_ACCESS_TOKEN).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export class CliError extends Error {}

export function configDir() {
  const base = process.env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(base, "cloud-ide");
}

function readSaved() {
  const file = join(configDir(), "config.json");
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    throw new CliError(`${file} is not JSON: remove it and run cloud-ide login again.`);
  }
}

export function saveConfig(values) {
  const dir = configDir();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, "config.json");
  writeFileSync(file, `${JSON.stringify({ ...readSaved(), ...values }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/** The IDE's URL and the token; `needToken` false for login. */
export function loadConfig({ needToken = true } = {}) {
  const saved = readSaved();
  const url = process.env.CLOUD_IDE_URL || saved.url;
  const token = process.env.CLOUD_IDE_TOKEN || saved.token;
  if (!url) throw new CliError("No IDE URL: run cloud-ide login URL, or set CLOUD_IDE_URL.");
  if (needToken && !token) {
    throw new CliError(
      "No access token: run cloud-ide login, or set CLOUD_IDE_TOKEN (make one on the IDE's Tokens page).",
    );
  }
  return { url: new URL(url).origin, token };
}

/** Headers every request carries: the token, and Cloudflare Access's credentials when given. */
export function authHeaders(config) {
  const headers = { "User-Agent": `cloud-ide-cli node/${process.versions.node}` };
  if (config.token) headers.Authorization = `Bearer ${config.token}`;
  if (process.env.CF_ACCESS_CLIENT_ID && process.env.CF_ACCESS_CLIENT_SECRET) {
    headers["CF-Access-Client-Id"] = process.env.CF_ACCESS_CLIENT_ID;
    headers["CF-Access-Client-Secret"] = process.env.CF_ACCESS_CLIENT_SECRET;
  }
  if (process.env.CF_ACCESS_TOKEN) headers["cf-access-token"] = process.env.CF_ACCESS_TOKEN;
  return headers;
}

/** A JSON request to the IDE; throws CliError with the server's message on a refusal. */
export async function api(config, path, { method = "GET", body } = {}) {
  const headers = authHeaders(config);
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(new URL(path, config.url), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: "manual",
    });
  } catch (error) {
    throw new CliError(`Cannot reach ${config.url}: ${error.cause?.message ?? error.message}`);
  }
  const text = await response.text();
  let value;
  try {
    value = text ? JSON.parse(text) : undefined;
  } catch {
    value = undefined;
  }
  if (!response.ok) {
    const error = new CliError(
      value?.message
        ? `${value.message} (${value.code ?? response.status})`
        : response.status >= 300 && response.status < 400
          ? `${config.url} redirected (to ${response.headers.get("Location")}): behind Cloudflare Access, set CF_ACCESS_CLIENT_ID/CF_ACCESS_CLIENT_SECRET or CF_ACCESS_TOKEN.`
          : `HTTP ${response.status} from ${path}`,
    );
    error.status = response.status;
    error.code = value?.code;
    throw error;
  }
  return value;
}
