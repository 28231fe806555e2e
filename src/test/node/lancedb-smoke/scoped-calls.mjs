// The calls of a key that may manage namespace team_a only, where namespace team_b holds a table
// plans, made with the LanceDB module given (each project passes its own version): what worked
// inside team_a, and how each call outside it was refused.
export async function scoped(lancedb, uri, apiKey) {
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
  return { rows, tagged, names, namespaces, outside };
}
