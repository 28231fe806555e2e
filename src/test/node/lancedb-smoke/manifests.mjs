// Usage: node manifests.mjs <output directory>. Writes, with LanceDB to local directories, a table
// with V2 manifest names and one with V1 names (create, add, a scalar index: three versions each),
// copies every manifest to the output as <table>-<file> and writes transactions.txt: each copied
// manifest with the uuid of the transaction file whose read version is one less than its version.
import * as lancedb from "@lancedb/lancedb";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [output] = process.argv.slice(2);
mkdirSync(output, { recursive: true });
const lines = [];
for (const [name, v2] of [["v2", true], ["v1", false]]) {
  const dir = mkdtempSync(join(tmpdir(), "lancedb-manifests-"));
  const db = await lancedb.connect(dir);
  const table = await db.createTable(name, [{ id: 1 }, { id: 2 }], { enableV2ManifestPaths: v2 });
  await table.add([{ id: 3 }]);
  await table.createIndex("id", { config: lancedb.Index.btree() });
  const root = join(dir, `${name}.lance`);
  const transactions = new Map(
    readdirSync(join(root, "_transactions")).map((file) => {
      const dash = file.indexOf("-");
      return [Number(file.slice(0, dash)), file.slice(dash + 1, -".txn".length)];
    }),
  );
  for (const file of readdirSync(join(root, "_versions")).filter((f) => f.endsWith(".manifest"))) {
    const digits = file.slice(0, -".manifest".length);
    const version = v2 ? Number(18446744073709551615n - BigInt(digits)) : Number(digits);
    copyFileSync(join(root, "_versions", file), join(output, `${name}-${file}`));
    lines.push(`${name}-${file} ${transactions.get(version - 1)}`);
  }
}
writeFileSync(join(output, "transactions.txt"), lines.sort().join("\n") + "\n");
console.log(JSON.stringify({ manifests: lines.length }));
