// Usage: node lifecycle.mjs <gateway url> <api key>; the namespace ns1 must exist. Prints one JSON
// line. Renames a table, drops it, creates the dropped name again, drops every table of the
// namespace, then the namespace.
import * as lancedb from "@lancedb/lancedb";

const [uri, apiKey] = process.argv.slice(2);
const db = await lancedb.connectNamespace("rest", { uri, headers: { "x-api-key": apiKey } });
const table = await db.createTable("clicks", [{ id: 1, name: "a" }, { id: 2, name: "b" }], ["ns1"]);
await table.add([{ id: 3, name: "c" }]);

await db.renameTable("clicks", "taps", { namespacePath: ["ns1"] });
const namesAfterRename = await db.tableNames(["ns1"]);
const renamed = await db.openTable("taps", ["ns1"]);
await renamed.add([{ id: 4, name: "d" }]);
const renamedRows = await renamed.countRows();
const renamedVersions = (await renamed.listVersions()).map((v) => v.version);

await db.dropTable("taps", ["ns1"]);
const namesAfterDrop = await db.tableNames(["ns1"]);
const again = await db.createTable("taps", [{ id: 9, name: "z" }], ["ns1"]);
const againRows = await again.countRows();
const againVersions = (await again.listVersions()).map((v) => v.version);

await db.createTable("views", [{ id: 1, name: "v" }], ["ns1"]);
await db.dropAllTables(["ns1"]);
const namesAfterDropAll = await db.tableNames(["ns1"]);
await db.dropNamespace(["ns1"]);
const namespaces = await db.listNamespaces([]);

console.log(
  JSON.stringify({
    namesAfterRename,
    renamedRows,
    renamedVersions,
    namesAfterDrop,
    againRows,
    againVersions,
    namesAfterDropAll,
    namespaces,
  }),
);
