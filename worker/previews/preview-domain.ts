/**
 * PREVIEW_DOMAIN must not share a registrable domain ("site") with the IDE's
 * hostname: browsers treat hosts of one site as same-site, so a preview page
 * could send requests that carry the IDE's SameSite=Lax cookie, and previews
 * could set cookies for the whole site, each other's included. The public
 * suffix list (tldts, with its private section: `workers.dev` names are
 * separate sites, as browsers see them) says what a site is.
 */
import { getDomain } from "tldts";

/** The site two hostnames share, or undefined when they are different sites (or have none, like localhost). */
export function sharedSite(ideHost: string, previewDomain: string): string | undefined {
  const site = (host: string) => getDomain(host.replace(/:\d+$/, ""), { allowPrivateDomains: true }) ?? undefined;
  const ide = site(ideHost);
  return ide !== undefined && ide === site(previewDomain) ? ide : undefined;
}

/** What to tell whoever configured it, or undefined when the two are apart. */
export function previewDomainProblem(ideHost: string, previewDomain: string): string | undefined {
  const site = sharedSite(ideHost, previewDomain);
  if (!site) return undefined;
  return `PREVIEW_DOMAIN "${previewDomain}" and the IDE's hostname "${ideHost}" are the same site (${site}): a preview page could send requests carrying the IDE's session cookie, and previews could set cookies for each other. Give previews a domain of their own (another registrable domain, e.g. example-previews.com), then deploy again.`;
}
