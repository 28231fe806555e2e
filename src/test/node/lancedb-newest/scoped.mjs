// Usage: node scoped.mjs <gateway url> <api key>; the key may manage namespace team_a only, and
// namespace team_b holds a table plans. Prints one JSON line (scoped-calls.mjs).
import * as lancedb from "@lancedb/lancedb";
import { scoped } from "../lancedb-smoke/scoped-calls.mjs";

const [uri, apiKey] = process.argv.slice(2);
console.log(JSON.stringify(await scoped(lancedb, uri, apiKey)));
