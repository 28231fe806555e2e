// Validates each event of a JSON array (a file named by the first argument) with the official
// CloudEvents SDK, strictly, and prints one JSON line: how many passed, and why the others did not.
import { readFileSync } from "node:fs";
import { CloudEvent } from "cloudevents";

const events = JSON.parse(readFileSync(process.argv[2], "utf8"));
const refused = [];
for (const event of events) {
  try {
    new CloudEvent(event, true);
  } catch (error) {
    refused.push({ id: event.id, type: event.type, message: error.message, errors: error.errors });
  }
}
console.log(JSON.stringify({ valid: events.length - refused.length, refused }));
