// Local secrets for `vite dev`: `.dev.vars` gets a random IDE_PASSWORD and
// SESSION_SECRET when they are missing, and the password is printed once.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detail, step } from "./run.mjs";

const ROOT = new URL("../../", import.meta.url).pathname;
export const DEV_VARS = join(ROOT, ".dev.vars");

/** @returns {Record<string, string>} the variables in .dev.vars */
export function readDevVars() {
  if (!existsSync(DEV_VARS)) return {};
  const vars = {};
  for (const line of readFileSync(DEV_VARS, "utf8").split("\n")) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    vars[match[1]] = match[2].replace(/^"(.*)"$/, "$1");
  }
  return vars;
}

export function ensureDevVars() {
  const vars = readDevVars();
  const added = [];
  if (!vars.IDE_PASSWORD) {
    vars.IDE_PASSWORD = randomBytes(12).toString("base64url");
    added.push(`IDE_PASSWORD="${vars.IDE_PASSWORD}"`);
  }
  if (!vars.SESSION_SECRET) {
    vars.SESSION_SECRET = randomBytes(32).toString("base64url");
    added.push(`SESSION_SECRET="${vars.SESSION_SECRET}"`);
  }
  if (added.length === 0) return vars;
  const before = existsSync(DEV_VARS) ? readFileSync(DEV_VARS, "utf8") : "";
  const separator = before && !before.endsWith("\n") ? "\n" : "";
  writeFileSync(DEV_VARS, `${before}${separator}${added.join("\n")}\n`, { mode: 0o600 });
  step("Created local secrets in .dev.vars");
  if (added.some((line) => line.startsWith("IDE_PASSWORD"))) {
    detail(`Your IDE password: ${vars.IDE_PASSWORD}`);
    detail("(It is shown once; it stays in .dev.vars as IDE_PASSWORD.)");
  }
  return vars;
}
