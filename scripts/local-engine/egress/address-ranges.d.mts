export const NON_PUBLIC_IPV4: string[];
export const NON_PUBLIC_IPV6: string[];
export function publicAddressCheck(hostAddresses?: string[]): (address: string) => boolean;
