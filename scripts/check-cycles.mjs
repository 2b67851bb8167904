// No import cycles, types included, on either side: a cycle means two modules
// that cannot be understood (or tested) one without the other. madge reads
// the imports with each side's TypeScript config; type-only imports count.
import madge from "madge";

const SIDES = [
  { name: "worker", paths: ["worker", "protocol"], tsConfig: "tsconfig.worker.json" },
  // The app's feature folders too: editor/ and files/ must not import each other through any files.
  { name: "app", paths: ["app", "protocol"], tsConfig: "tsconfig.app.json", folders: "app" },
];

let failed = false;
for (const side of SIDES) {
  const graph = await madge(side.paths, {
    fileExtensions: ["ts", "tsx"],
    tsConfig: side.tsConfig,
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
  });
  const cycles = graph.circular();
  if (side.folders) cycles.push(...folderCycles(graph.obj(), side.folders));
  if (cycles.length === 0) {
    console.log(`${side.name}: no import cycle in ${Object.keys(graph.obj()).length} modules`);

    continue;
  }
  failed = true;
  console.error(`${side.name}: ${cycles.length} import cycle(s):`);
  for (const cycle of cycles) console.error(`  ${[...cycle, cycle[0]].join(" -> ")}`);
}
if (failed) {
  console.error("Break each cycle: move what both sides need into a module of its own (a leaf), or pass it in.");
  process.exit(1);
}

/** Cycles between the folders right under `root` (modules directly in it belong to no folder). */
function folderCycles(modules, root) {
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
