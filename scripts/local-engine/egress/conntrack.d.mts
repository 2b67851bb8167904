export interface Endpoint {
  address: string;
  port: number;
}
export function originalDestination(table: string, protocol: "tcp" | "udp", client: Endpoint): Endpoint | undefined;
export function lookupOriginalDestination(protocol: "tcp" | "udp", client: Endpoint): Promise<Endpoint | undefined>;
