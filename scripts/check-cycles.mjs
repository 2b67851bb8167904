// No import cycles, types included, on either side: a cycle means two modules
// that cannot be understood (or tested) one without the other. madge reads
// the imports with each side's TypeScript config; type-only imports count.
import madge from "madge";

const SIDES = [
  { name: "worker", paths: ["worker", "protocol"], tsConfig: "tsconfig.worker.json" },
  // The app joins once its last cycle (app/components/FileTreeRow.tsx <-> useTreeDrop.ts) is broken:
  // { name: "app", paths: ["app", "protocol"], tsConfig: "tsconfig.app.json" },
];

let failed = false;
for (const side of SIDES) {
  const graph = await madge(side.paths, {
    fileExtensions: ["ts", "tsx"],
    tsConfig: side.tsConfig,
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
  });
  const cycles = graph.circular();
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
