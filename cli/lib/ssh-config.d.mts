export const BEGIN_MARK: string;
export const END_MARK: string;
export function configName(name: string): string;
export function hostEntries(
  workspaces: { id: string; name: string; shared?: { role: string } }[],
  how: { key: string; knownHosts: string; proxyCommand: (id: string) => string },
): { text: string; hosts: string[] };
export function mergeSshConfig(before: string, entries: string): string;
