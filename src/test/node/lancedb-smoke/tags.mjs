// Usage: node tags.mjs <gateway url> <api key>; the namespace ns1 must exist. Prints one JSON line.
// A tag made through LanceDB is listed by the gateway; one made through the gateway is seen by
// LanceDB and can be checked out.
import * as lancedb from "@lancedb/lancedb";

const [uri, apiKey] = process.argv.slice(2);
const db = await lancedb.connectNamespace("rest", { uri, headers: { "x-api-key": apiKey } });
const table = await db.createTable("tagged", [{ id: 1 }, { id: 2 }], ["ns1"]);
await table.add([{ id: 3 }]);
const tags = await table.tags();
await tags.create("by-lancedb", 1);

const gateway = async (operation, body) => {
  const response = await fetch(`${uri}/v1/table/ns1%24tagged/tags/${operation}`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
};
const listedByGateway = await gateway("list", {});
const created = await gateway("create", { tag: "by-gateway", version: 2 });

const opened = await db.openTable("tagged", ["ns1"]);
const seenByLanceDb = Object.keys(await (await opened.tags()).list()).sort();
const versionOfGatewayTag = await (await opened.tags()).getVersion("by-gateway");
await opened.checkout("by-gateway");
const rowsAtGatewayTag = await opened.countRows();
await opened.checkout("by-lancedb");
const rowsAtLanceDbTag = await opened.countRows();
await (await opened.tags()).delete("by-gateway");
const afterDelete = await gateway("version", { tag: "by-gateway" });

console.log(
  JSON.stringify({
    listedByGateway,
    created: created.status,
    seenByLanceDb,
    versionOfGatewayTag,
    rowsAtGatewayTag,
    rowsAtLanceDbTag,
    afterDelete: afterDelete.status,
  }),
);
