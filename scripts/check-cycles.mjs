// No import cycles, types included, on either side: a cycle means two modules
// that cannot be understood (or tested) one without the other
// (scripts/lib/import-cycles.mjs finds them).
import { importCycles } from "./lib/import-cycles.mjs";

const SIDES = [
  // The feature folders too: files/ and lifecycle/ (editor/ and files/ in the app) must not import
  // each other through any files. Modules right under worker/ (the Workspace's wiring) belong to none.
  { name: "worker", paths: ["worker", "protocol"], tsConfig: "tsconfig.worker.json", folders: "worker" },
  { name: "app", paths: ["app", "protocol"], tsConfig: "tsconfig.app.json", folders: "app" },
];

let failed = false;
for (const side of SIDES) {
  const { modules, cycles } = await importCycles(side);
  if (cycles.length === 0) {
    console.log(`${side.name}: no import cycle in ${modules} modules`);
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
