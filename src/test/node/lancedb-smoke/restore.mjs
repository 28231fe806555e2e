// Usage: node restore.mjs <gateway url> <api key>; the namespace ns1 must exist. Prints one JSON line.
// Writes two versions, asks the gateway to restore version 1, then reads and writes after it.
import * as lancedb from "@lancedb/lancedb";

const [uri, apiKey] = process.argv.slice(2);
const db = await lancedb.connectNamespace("rest", { uri, headers: { "x-api-key": apiKey } });
const table = await db.createTable("restored", [{ id: 1 }, { id: 2 }], ["ns1"]);
await table.add([{ id: 3 }]);
const answer = await fetch(`${uri}/v1/table/ns1%24restored/restore`, {
  method: "POST",
  headers: { "x-api-key": apiKey, "content-type": "application/json" },
  body: JSON.stringify({ version: 1 }),
});
const restoreStatus = answer.status;
const opened = await db.openTable("restored", ["ns1"]);
const rowsAfterRestore = await opened.countRows();
const versionAfterRestore = await opened.version();
await opened.add([{ id: 4 }]);
const ids = (await opened.query().toArray()).map((row) => Number(row.id)).sort((a, b) => a - b);
const versions = (await opened.listVersions()).map((v) => v.version);
await opened.checkout(2);
const rowsAtVersion2 = await opened.countRows();
console.log(
  JSON.stringify({ restoreStatus, rowsAfterRestore, versionAfterRestore, ids, versions, rowsAtVersion2 }),
);
