import type { Role } from "../../protocol/roles";
import { userDirectory } from "../directory";

/**
 * The SSH keys a workspace's sshd takes: those the owner and the editors
 * registered in their Directories (a viewer never gets a shell).
 */
export async function authorizedKeys(
  env: Env,
  owner: string | undefined,
  roles: Readonly<Record<string, Role>>,
): Promise<string[]> {
  const people = [
    ...(owner ? [owner] : []),
    ...Object.entries(roles)
      .filter(([, role]) => role === "editor")
      .map(([id]) => id),
  ];
  const lists = await Promise.all(people.map((id) => userDirectory(env, id).listSshKeys()));
  return [...new Set(lists.flat().map((key) => key.publicKey))];
}
