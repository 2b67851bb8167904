// The import cycles of one side of the code, types included (madge reads the
// imports with that side's TypeScript config; type-only imports count): by
// file, and, when `folders` names a root, between the folders right under it
// (modules directly in the root belong to no folder).
import madge from "madge";

/** Each cycle as the list of files (or folders) in it, the first not repeated at the end. */
export async function importCycles({ paths, tsConfig, folders, baseDir }) {
  const graph = await madge(paths, {
    baseDir,
    fileExtensions: ["ts", "tsx"],
    tsConfig,
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
  });
  const cycles = graph.circular();
  if (folders) cycles.push(...folderCycles(graph.obj(), folders));
  return { modules: Object.keys(graph.obj()).length, cycles };
}

/** Cycles between the folders right under `root`, from a map of file -> the files it imports. */
export function folderCycles(modules, root) {
  const folderOf = (file) => {
    const parts = file.split("/");
    return parts[0] === root && parts.length > 2 ? `${root}/${parts[1]}/` : undefined;
  };
  const edges = new Map();
  for (const [file, imports] of Object.entries(modules)) {
    const from = folderOf(file);
    if (!from) continue;
    for (const imported of imports) {
      const to = folderOf(imported);
      if (to && to !== from) edges.set(from, new Set([...(edges.get(from) ?? []), to]));
    }
  }
  const cycles = [];
  const done = new Set();
  const visit = (folder, path) => {
    if (path.includes(folder)) {
      cycles.push(path.slice(path.indexOf(folder)));
      return;
    }
    if (done.has(folder)) return;
    for (const next of edges.get(folder) ?? []) visit(next, [...path, folder]);
    done.add(folder);
  };
  for (const folder of edges.keys()) visit(folder, []);
  return cycles;
}
