/**
 * What the preview pane tells the owner to add when a dev server checks the
 * origin or Host of requests and offers no way to widen that check from the
 * environment. Vite (and what runs on it: SvelteKit, Angular's `ng serve`,
 * Astro) reads the sandbox's `__VITE_ADDITIONAL_SERVER_ALLOWED_HOSTS`
 * (sandbox/profile.sh) and needs nothing. Next.js (16.2 and later) refuses
 * its dev resources (`/_next/*`, the hot-reload socket) to any origin but
 * `localhost`, its subdomains and its `allowedDevOrigins` setting, which
 * only next.config sets: the page renders, but never hydrates or hot-reloads.
 */

export interface HostHint {
  framework: string;
  /** The file to edit. */
  file: string;
  /** What to add to it. */
  add: string;
}

/** Preview hostnames under `localhost` pass every framework's own check: no hint is needed there. */
function isLocalhost(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost");
}

/**
 * The hint for the process listening on a port, or undefined.
 * @param process the listening process's command line (ListeningPort.process)
 * @param previewUrl the port's preview URL (`https://{port}-{id}-{token}.{domain}/`)
 */
export function hostHint(process: string | undefined, previewUrl: string | undefined): HostHint | undefined {
  if (!process || !previewUrl) return undefined;
  let hostname: string;
  try {
    hostname = new URL(previewUrl).hostname;
  } catch {
    return undefined;
  }
  if (isLocalhost(hostname)) return undefined;
  const domain = hostname.slice(hostname.indexOf(".") + 1);
  // `next dev` shows as `next-server (v16.x)`, or as node running next's CLI.
  if (/(?:^|[\s/])next-server\b|\/next\/dist\/|(?:^|[\s/])next\s+dev\b/.test(process)) {
    return { framework: "Next.js", file: "next.config", add: `allowedDevOrigins: ["*.${domain}"]` };
  }
  return undefined;
}
