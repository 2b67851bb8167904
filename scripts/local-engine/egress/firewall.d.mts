export interface FirewallState {
  gateway: string;
  bridgeCidr: string;
  ingressPort: number;
  egressPort: number;
  gatePort?: number;
  hostAddresses?: string[];
  internet: boolean;
  intercept: boolean;
  interceptPort: number;
  dnsPort: number;
  forwarderGid: number;
}
export function ipv4Rules(state: FirewallState): string;
export function ipv6Rules(state: FirewallState): string;
export function applyFirewall(state: FirewallState): Promise<void>;
