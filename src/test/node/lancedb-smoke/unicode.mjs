// Usage: node unicode.mjs <gateway url> <api key>; the namespace "données" must exist. Prints one
// JSON line. A table named in several scripts is created, opened by its NFD spelling (e and a
// combining accent), renamed to a right-to-left name and dropped.
import * as lancedb from "@lancedb/lancedb";

const [uri, apiKey] = process.argv.slice(2);
const db = await lancedb.connectNamespace("rest", { uri, headers: { "x-api-key": apiKey } });
const namespace = ["données"];
const name = "数据 🦆 café";
const table = await db.createTable(name, [{ id: 1, name: "a" }, { id: 2, name: "b" }], namespace);
await table.add([{ id: 3, name: "c" }]);

const decomposed = await db.openTable("数据 🦆 cafe\u0301", ["donne\u0301es"]);
const rowsByDecomposedName = await decomposed.countRows();
const versions = (await decomposed.listVersions()).map((v) => v.version);
const namesBefore = await db.tableNames(namespace);

await db.renameTable(name, "جدول", { namespacePath: namespace });
const renamed = await db.openTable("جدول", namespace);
await renamed.add([{ id: 4, name: "d" }]);
const renamedRows = await renamed.countRows();
const namesAfterRename = await db.tableNames(namespace);
await db.dropTable("جدول", namespace);
const namesAfterDrop = await db.tableNames(namespace);

console.log(
  JSON.stringify({
    rowsByDecomposedName,
    versions,
    namesBefore,
    renamedRows,
    namesAfterRename,
    namesAfterDrop,
  }),
);
