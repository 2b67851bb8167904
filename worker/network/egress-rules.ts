/**
 * The policy in force for one workspace, as the Outbound entrypoint needs it
 * (versioned: every change gets a new version, and the intercepts are
 * registered again with it), and the decision on one request. Pure.
 */
import { isAddressHost, isLocalName, matchesAny, type NetworkMode } from "../../protocol/network";

export interface EgressRules {
  /** Increases with every change of the policy or the secrets. */
  version: number;
  /** The mode in force (`open` where the deployment forbids the Internet is `off`). */
  mode: NetworkMode;
  allow: string[];
  secrets: { name: string; header: string; value: string; hosts: string[] }[];
  /** Named in the answers to blocked requests. */
  workspaceId?: string;
}

export type EgressDecision =
  | {
      allow: true;
      /** Headers to set: the secrets for this host. */
      headers: { name: string; value: string }[];
      /** Their names, for the log. */
      secrets: string[];
      /** False in `open` (a local engine may still hand requests over): nothing is logged. */
      logged: boolean;
    }
  | { allow: false; message: string };

/** The host a request is for: lowercase, without a trailing dot. */
export function requestHost(url: URL): string {
  return url.hostname.toLowerCase().replace(/\.$/, "");
}

export function decide(rules: EgressRules, url: URL): EgressDecision {
  const host = requestHost(url);
  // In every mode, `open` included (a container switched to it may still hand
  // requests over): the Worker never fetches this machine or an address.
  const local = refuseLocal(host);
  if (local) return { allow: false, message: local };
  if (rules.mode === "open") return { allow: true, headers: [], secrets: [], logged: false };
  const refusal = refuse(rules, host, url.port);
  if (refusal) return { allow: false, message: refusal };
  const headers: { name: string; value: string }[] = [];
  const secrets: string[] = [];
  // Secrets travel only encrypted: never in a plain HTTP request.
  if (url.protocol === "https:") {
    for (const secret of rules.secrets) {
      if (matchesAny(secret.hosts, host)) {
        headers.push({ name: secret.header, value: secret.value });
        secrets.push(secret.name);
      }
    }
  }
  return { allow: true, headers, secrets, logged: true };
}

/**
 * An address in any spelling (the URL parser has normalised it) or a
 * localhost name: on the local platform that is this machine (the IDE, the
 * Worker's inspector), and no request names one by need.
 */
function refuseLocal(host: string): string | undefined {
  if (isLocalName(host)) return `Blocked by the IDE: ${host} is this machine's own name; workspaces cannot reach it.`;
  if (isAddressHost(host)) {
    return `Blocked by the IDE: requests leave this workspace by hostname only, not to an IP address (${host}).`;
  }
  return undefined;
}

function refuse(rules: EgressRules, host: string, port: string): string | undefined {
  const api = `PUT /api/workspaces/${rules.workspaceId ?? "{id}"}/network`;
  if (rules.mode === "off") {
    return `Blocked by the IDE: this workspace's network is off, so nothing leaves it (${host} included). To let ${host} through, open the Network panel, choose "Allow list" and add ${host} (or ${api} with {"mode":"allowlist","allow":["${host}"]}).`;
  }
  if (port !== "")
    return `Blocked by the IDE: requests leave this workspace on ports 80 and 443 only, not ${host}:${port}.`;
  if (!matchesAny(rules.allow, host)) {
    return `Blocked by the IDE: ${host} is not on this workspace's allow list. To allow it, click Allow next to it in the Network panel, or add "${host}" to "allow" with ${api}.`;
  }
  return undefined;
}
