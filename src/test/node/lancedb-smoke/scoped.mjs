// Usage: node scoped.mjs <gateway url> <api key>; the key may manage namespace team_a only, and
// namespace team_b holds a table plans. Prints one JSON line: what worked inside team_a and how
// each call outside it was refused.
import * as lancedb from "@lancedb/lancedb";

const [uri, apiKey] = process.argv.slice(2);
const db = await lancedb.connectNamespace("rest", { uri, headers: { "x-api-key": apiKey } });
const table = await db.createTable("events", [{ id: 1 }, { id: 2 }], ["team_a"]);
await table.add([{ id: 3 }]);
const tags = await table.tags();
await tags.create("first", 1);
const opened = await db.openTable("events", ["team_a"]);
const rows = await opened.countRows();
const tagged = Object.keys(await (await opened.tags()).list());
await db.createTable("scratch", [{ id: 1 }], ["team_a"]);
await db.dropTable("scratch", ["team_a"]);
const names = await db.tableNames(["team_a"]);
const namespaces = await db.listNamespaces([]);

const refusal = async (call) => {
  try {
    await call();
    return "allowed";
  } catch (error) {
    return String(error.message ?? error);
  }
};
const outside = {
  open: await refusal(() => db.openTable("plans", ["team_b"])),
  list: await refusal(() => db.tableNames(["team_b"])),
  create: await refusal(() => db.createTable("intruder", [{ id: 1 }], ["team_b"])),
  drop: await refusal(() => db.dropTable("plans", ["team_b"])),
};
console.log(JSON.stringify({ rows, tagged, names, namespaces, outside }));
