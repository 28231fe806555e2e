// Usage: node cleanup.mjs <gateway url> <api key>; the namespace ns1 must exist. Prints one JSON
// line. Commits versions with every kind of write (add, delete, update, merge insert, restore),
// prunes every version but the latest (optimize with cleanup), then checks out every version the
// gateway still lists.
import * as lancedb from "@lancedb/lancedb";

const [uri, apiKey] = process.argv.slice(2);
const db = await lancedb.connectNamespace("rest", { uri, headers: { "x-api-key": apiKey } });
const table = await db.createTable("pruned", [{ id: 1 }], ["ns1"]);
await table.add([{ id: 2 }]);
await table.add([{ id: 3 }]);
await table.add([{ id: 4 }]);
// Every kind of write a LanceDB user makes commits a version through the gateway.
await table.delete("id = 2");
await table.update({ where: "id = 3", values: { id: 30 } });
await table
  .mergeInsert("id")
  .whenMatchedUpdateAll()
  .whenNotMatchedInsertAll()
  .execute([{ id: 4 }, { id: 5 }]);
const ids = async (t) => (await t.query().toArray()).map((row) => Number(row.id)).sort((a, b) => a - b);
const written = await ids(table);
await table.checkout(4);
await table.restore();
const restored = await ids(table);
const before = (await table.listVersions()).map((v) => v.version);
await new Promise((resolve) => setTimeout(resolve, 50));
const stats = await table.optimize({ cleanupOlderThan: new Date(), deleteUnverified: true });
const opened = await db.openTable("pruned", ["ns1"]);
// The versions the gateway lists, each of which must check out.
const listing = await fetch(`${uri}/v1/table/ns1%24pruned/version/list`, {
  method: "POST",
  headers: { "x-api-key": apiKey },
});
const after = (await listing.json()).versions.map((v) => v.version);
const checkedOut = [];
const failed = [];
for (const version of after) {
  try {
    await opened.checkout(version);
    await opened.countRows();
    checkedOut.push(version);
  } catch (e) {
    failed.push(`${version}: ${e.message.split("\n")[0]}`);
  }
}
console.log(
  JSON.stringify({
    written,
    restored,
    before,
    after,
    checkedOut,
    failed,
    removed: stats.prune?.oldVersionsRemoved ?? stats.prune?.oldVersions,
  }),
);
