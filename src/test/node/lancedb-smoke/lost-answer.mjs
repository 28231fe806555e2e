// Usage: node lost-answer.mjs <gateway url> <api key> create|add|read; the namespace ns1 must exist.
// create: table ns1.lost with ids 1 and 2; add: appends ids 3 and 4; read: the ids and versions.
// Prints one JSON line; add reports the error LanceDB raised, if any, instead of failing.
import * as lancedb from "@lancedb/lancedb";

const [uri, apiKey, step] = process.argv.slice(2);
const db = await lancedb.connectNamespace("rest", { uri, headers: { "x-api-key": apiKey } });
if (step === "create") {
  await db.createTable("lost", [{ id: 1 }, { id: 2 }], ["ns1"]);
  console.log(JSON.stringify({ created: true }));
} else if (step === "add") {
  const table = await db.openTable("lost", ["ns1"]);
  const started = Date.now();
  try {
    await table.add([{ id: 3 }, { id: 4 }]);
    console.log(JSON.stringify({ ok: true, millis: Date.now() - started }));
  } catch (error) {
    console.log(JSON.stringify({ ok: false, error: String(error.message), millis: Date.now() - started }));
  }
} else {
  const table = await db.openTable("lost", ["ns1"]);
  const ids = (await table.query().toArray()).map((row) => Number(row.id)).sort((a, b) => a - b);
  const versions = (await table.listVersions()).map((v) => v.version);
  console.log(JSON.stringify({ ids, versions }));
}
