// Refuses a deploy whose PREVIEW_DOMAIN shares a site (registrable domain) with
// a hostname the IDE is served on (README: "Deploy to Cloudflare"). Reads the
// wrangler config as wrangler does; `node scripts/check-preview-domain.mjs [config]`.
import { unstable_readConfig } from "wrangler";
import { previewDomainProblem } from "../worker/previews/preview-domain.ts";

const config = unstable_readConfig({ config: process.argv[2] ?? "wrangler.jsonc" }, { hideWarnings: true });
const previewDomain = String(config.vars?.PREVIEW_DOMAIN ?? "").toLowerCase();
const hosts = (config.routes ?? [])
  .map((route) => (typeof route === "string" ? route : route.pattern))
  .map((pattern) =>
    pattern
      .replace(/^https?:\/\//, "")
      .replace(/\/.*$/, "")
      .toLowerCase(),
  )
  // The previews' own wildcard route is not an IDE hostname.
  .filter((host) => !host.startsWith("*.") || host.slice(2) !== previewDomain);
const problems = hosts.map((host) => previewDomainProblem(host, previewDomain)).filter(Boolean);
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(
  hosts.length > 0
    ? `PREVIEW_DOMAIN ${previewDomain} is a site of its own, apart from ${hosts.join(", ")}`
    : `PREVIEW_DOMAIN ${previewDomain}: no IDE route configured yet to compare with (the Worker checks its own hostname too)`,
);
