// Usage: node smoke.mjs <gateway url> <api key>; the namespace ns1 must exist. Prints one JSON line.
import * as lancedb from "@lancedb/lancedb";

const [uri, apiKey] = process.argv.slice(2);
const db = await lancedb.connectNamespace("rest", { uri, headers: { "x-api-key": apiKey } });
const table = await db.createTable("events", [{ id: 1, name: "a" }, { id: 2, name: "b" }], ["ns1"]);
await table.add([{ id: 3, name: "c" }]);
const opened = await db.openTable("events", ["ns1"]);
const rows = await opened.countRows();
const versions = (await opened.listVersions()).map((v) => v.version);
await opened.checkout(1);
const rowsAtVersion1 = await opened.countRows();
console.log(JSON.stringify({ rows, versions, rowsAtVersion1 }));
