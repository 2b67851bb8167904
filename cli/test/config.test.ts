import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { authHeaders, CliError, configDir, loadConfig, saveConfig } from "../lib/config.mjs";

let home: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "cloud-ide-cli-unit-"));
  // os.homedir() reads HOME; nothing here may read or write the real one.
  vi.stubEnv("HOME", home);
  vi.stubEnv("XDG_CONFIG_HOME", "");
  for (const name of [
    "CLOUD_IDE_URL",
    "CLOUD_IDE_TOKEN",
    "CF_ACCESS_CLIENT_ID",
    "CF_ACCESS_CLIENT_SECRET",
    "CF_ACCESS_TOKEN",
  ]) {
    vi.stubEnv(name, "");
  }
});

afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(home, { recursive: true, force: true });
});

function saved(values: object): void {
  mkdirSync(join(home, ".config/cloud-ide"), { recursive: true });
  writeFileSync(join(home, ".config/cloud-ide/config.json"), JSON.stringify(values));
}

describe("where the CLI keeps its files", () => {
  it("is ~/.config/cloud-ide, or under XDG_CONFIG_HOME, read when asked", () => {
    expect(configDir()).toBe(join(home, ".config/cloud-ide"));
    vi.stubEnv("XDG_CONFIG_HOME", join(home, "xdg"));
    expect(configDir()).toBe(join(home, "xdg/cloud-ide"));
  });
});

describe("the IDE's URL and token", () => {
  it("are what login saved when the environment names none", () => {
    saved({ url: "https://ide.example.com", token: "saved-token" });
    expect(loadConfig()).toEqual({ url: "https://ide.example.com", token: "saved-token" });
  });

  it("are CLOUD_IDE_URL and CLOUD_IDE_TOKEN over what was saved, each on its own", () => {
    saved({ url: "https://ide.example.com", token: "saved-token" });
    vi.stubEnv("CLOUD_IDE_TOKEN", "env-token");
    expect(loadConfig()).toEqual({ url: "https://ide.example.com", token: "env-token" });
    vi.stubEnv("CLOUD_IDE_URL", "http://localhost:5173/some/page");
    expect(loadConfig()).toEqual({ url: "http://localhost:5173", token: "env-token" });
  });

  it("work from the environment alone, with nothing saved", () => {
    vi.stubEnv("CLOUD_IDE_URL", "https://other.example.com");
    vi.stubEnv("CLOUD_IDE_TOKEN", "env-token");
    expect(loadConfig()).toEqual({ url: "https://other.example.com", token: "env-token" });
  });

  it("say what to do when the URL or the token is missing", () => {
    expect(() => loadConfig()).toThrowError(/No IDE URL: run cloud-ide login URL, or set CLOUD_IDE_URL/);
    vi.stubEnv("CLOUD_IDE_URL", "https://ide.example.com");
    expect(() => loadConfig()).toThrowError(/No access token: run cloud-ide login, or set CLOUD_IDE_TOKEN/);
    expect(loadConfig({ needToken: false })).toEqual({ url: "https://ide.example.com", token: undefined });
  });

  it("name a saved file that is not JSON", () => {
    mkdirSync(join(home, ".config/cloud-ide"), { recursive: true });
    writeFileSync(join(home, ".config/cloud-ide/config.json"), "{not json");
    expect(() => loadConfig()).toThrowError(CliError);
    expect(() => loadConfig()).toThrowError(/config\.json is not JSON: remove it and run cloud-ide login again/);
  });

  it("are saved readable by their owner only, merged with what was there", () => {
    saved({ url: "https://ide.example.com", extra: 1 });
    const file = saveConfig({ token: "new-token" });
    expect(file).toBe(join(home, ".config/cloud-ide/config.json"));
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      url: "https://ide.example.com",
      extra: 1,
      token: "new-token",
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe("the headers a request carries", () => {
  it("are the token, and Cloudflare Access's credentials when set (a service token needs both halves)", () => {
    expect(authHeaders({ token: "t" })).toMatchObject({ Authorization: "Bearer t" });
    expect(authHeaders({})).not.toHaveProperty("Authorization");
    vi.stubEnv("CF_ACCESS_CLIENT_ID", "id.access");
    expect(authHeaders({ token: "t" })).not.toHaveProperty("CF-Access-Client-Id");
    vi.stubEnv("CF_ACCESS_CLIENT_SECRET", "secret");
    vi.stubEnv("CF_ACCESS_TOKEN", "jwt");
    expect(authHeaders({ token: "t" })).toMatchObject({
      "CF-Access-Client-Id": "id.access",
      "CF-Access-Client-Secret": "secret",
      "cf-access-token": "jwt",
    });
  });
});
