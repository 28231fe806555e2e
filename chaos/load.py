#!/usr/bin/env python3
"""Commit load with a ledger, and the checker that audits the ledger afterwards.

  load.py run   --url URL --key KEY --tables N [--readers N] --seconds S --ledger FILE
  load.py check --ledger FILE --db POSTGRES_URL

`run` drives one writer thread per table, as Lance writers do: write a staging manifest under the
table's _versions/, ask the gateway to create the next version from it, and on 503 or a broken
connection retry the same request until it is answered. Every answer is counted by status; every
200 goes to the ledger (table, version, final manifest path, the bytes staged). Any status other
than 200, 409 and 503 is a violation, and so is a 409 to a writer no other writer competes with,
or a request left unanswered for 10 s.

`check` audits the ledger against PostgreSQL and the storage: each acknowledged version has its
row with exactly the acknowledged path, its final manifest holds the staged bytes, no version was
acknowledged twice with different paths, and no committed row lacks its final manifest.
Exit status 0 only when everything holds.
"""
import argparse
import collections
import http.client
import json
import os
import struct
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid


# How long a client waits for one answer; shorter than the longest fault (PostgreSQL stopped for
# 12 s), so a gateway that held requests until its database came back would be caught.
ANSWER_WITHIN = 10


def post(conn, path, body, key):
    conn.request("POST", path, json.dumps(body),
                 {"x-api-key": key, "Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, response.read(), response.getheader("Connection", "")


class Writer(threading.Thread):
    def __init__(self, args, table, counts, ledger, lock, deadline):
        super().__init__(daemon=True)
        self.args, self.table, self.counts = args, table, counts
        self.ledger, self.lock, self.deadline = ledger, lock, deadline
        self.url = urllib.parse.urlparse(args.url)
        self.conn = None

    def call(self, path, body):
        """One request; None when the connection broke (the gateway may or may not have acted)."""
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.url.hostname, self.url.port,
                                                       timeout=ANSWER_WITHIN)
            status, data, connection = post(self.conn, path, body, self.args.key)
            if connection.lower() == "close":
                self.conn.close()
                self.conn = None
            return status, data
        except TimeoutError:
            # The gateway held the request past any client's patience: it must answer (503 at
            # worst) long before.
            self.count("violation:no answer within %d s" % ANSWER_WITHIN)
            self.conn.close()
            self.conn = None
            return None
        except (OSError, http.client.HTTPException):
            if self.conn is not None:
                self.conn.close()
            self.conn = None
            return None

    def count(self, status):
        with self.lock:
            self.counts[status] += 1

    def until_answered(self, path, body, stop_at_deadline=True):
        """Retries on 503 and broken connections; the first other answer, or None at the deadline."""
        while True:
            answer = self.call(path, body)
            self.count(answer[0] if answer else "connection")
            if answer and answer[0] != 503:
                return answer
            if stop_at_deadline and time.time() > self.deadline + 60:
                return None
            time.sleep(0.1)

    def run(self):
        table_path = "/v1/table/chaos%24" + self.table
        answer = self.until_answered(table_path + "/declare", {}, False)
        if answer[0] != 200 and answer[0] != 409:
            self.count("violation:declare %d" % answer[0])
            return
        answer = self.until_answered(table_path + "/describe", {}, False)
        described = json.loads(answer[1])
        location = described["location"]
        version = (described.get("version") or 0) + 1
        versions_dir = os.path.join(location, "_versions")
        while time.time() < self.deadline:
            content = "table %s version %d attempt %s\n" % (self.table, version, uuid.uuid4())
            staging = os.path.join(versions_dir, "%d.manifest-%s" % (version, uuid.uuid4()))
            if not self.stage(versions_dir, staging, content):
                continue
            body = {"version": version, "manifest_path": staging.lstrip("/"),
                    "manifest_size": len(lance_manifest(content)), "naming_scheme": "V1"}
            answer = self.until_answered(table_path + "/version/create", body)
            if answer is None:
                return
            status, data = answer
            if status == 200:
                final = json.loads(data)["version"]["manifest_path"]
                with self.lock:
                    self.ledger.write(json.dumps({"table": self.table, "version": version,
                                                  "path": final, "content": content,
                                                  "t": time.time()}) + "\n")
                    self.ledger.flush()
                version += 1
            else:
                self.count("violation:create %d %s" % (status, data[:200].decode(errors="replace")))
                return

    def stage(self, directory, path, content):
        try:
            os.makedirs(directory, exist_ok=True)
            with open(path, "wb") as f:
                f.write(lance_manifest(content))
            return True
        except OSError:
            # The storage is failing for the writer too: wait for it.
            time.sleep(0.1)
            return False


class Reader(Writer):
    """Describes tables and lists their versions, as readers of a table do, until the deadline."""

    def run(self):
        i = 0
        while time.time() < self.deadline:
            table = "%s%d" % (self.args.prefix, i % self.args.tables)
            i += 1
            op = "/describe" if i % 2 else "/version/list"
            answer = self.call("/v1/table/chaos%24" + table + op, {})
            status = answer[0] if answer else "connection"
            # Before its writer declared it, a table is unknown: 404.
            self.count(status if status in (200, 404, 503, "connection")
                       else "violation:read %s %s" % (status, answer[1][:200]))
            if status != 200:
                time.sleep(0.1)


def run(args):
    counts = collections.Counter()
    lock = threading.Lock()
    deadline = time.time() + args.seconds
    url = urllib.parse.urlparse(args.url)
    while True:
        try:
            conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
            status = post(conn, "/v1/namespace/chaos/create", {}, args.key)[0]
            conn.close()
            if status in (200, 409):
                break
        except OSError:
            pass
        time.sleep(0.2)
    with open(args.ledger, "a") as ledger:
        writers = [Writer(args, "%s%d" % (args.prefix, i), counts, ledger, lock, deadline)
                   for i in range(args.tables)]
        writers += [Reader(args, "reader%d" % i, counts, ledger, lock, deadline)
                     for i in range(args.readers)]
        for w in writers:
            w.start()
        for w in writers:
            w.join()
    violations = {k: v for k, v in counts.items() if isinstance(k, str) and k.startswith("violation")}
    answered = {k: v for k, v in counts.items() if k not in violations}
    print("answers: " + json.dumps({str(k): v for k, v in sorted(answered.items(), key=str)}))
    for k, v in violations.items():
        print("VIOLATION x%d: %s" % (v, k))
    bad = [k for k in answered if k not in (200, 409, 503, "connection")]
    if bad or violations or counts[200] == 0:
        print("FAIL: answers other than 200/409/503, or no commit at all")
        return 1
    return 0


def psql(db, sql):
    out = subprocess.run(["psql", db, "-Atq", "-F", "\t", "-c", sql], check=True,
                         capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


def lance_manifest(content):
    """A file laid out as a Lance manifest after `content`: a Manifest message naming one
    transaction file (field 12), its length before it and Lance's footer after it. The transaction
    is derived from the content, which is unique per attempt."""
    name = ("0-%s.txn" % uuid.uuid5(uuid.NAMESPACE_URL, content)).encode()
    message = bytes([12 << 3 | 2, len(name)]) + name
    body = content.encode()
    return (body + struct.pack("<I", len(message)) + message
            + struct.pack("<qHH", len(body), 0, 2) + b"LANC")


def check_feed(db, committed):
    """The change feed against the committed rows: the tenant's positions run 1, 2, 3, ... with
    no gap and no repeat; every committed version has exactly one created event (less the
    versions pruned since), none is there for a version that never committed, and each table's
    versions come in order."""
    rows = psql(db, "SELECT a.last_position - cardinality(a.object) + e.n, a.operation, e.object,"
                    " e.version FROM audit_events a"
                    " CROSS JOIN LATERAL unnest(a.object, a.version) WITH ORDINALITY AS e(object, version, n)"
                    " WHERE a.last_position IS NOT NULL AND a.tenant_id IN"
                    " (SELECT tenant_id FROM lance_tables WHERE namespace = '{chaos}')"
                    " ORDER BY 1")
    problems = []
    positions = [int(r[0]) for r in rows]
    if positions != list(range(1, len(positions) + 1)):
        missing = sorted(set(range(1, max(positions or [0]) + 1)) - set(positions))
        problems.append("feed positions are not 1..%d: %d missing (%s...), %d repeated"
                        % (len(positions), len(missing), missing[:5],
                           len(positions) - len(set(positions))))
    created = collections.Counter()
    last = {}
    for _, operation, obj, version in rows:
        if not obj.startswith("chaos$"):
            continue
        key = (obj[len("chaos$"):], int(version) if version else None)
        if operation == "CreateTableVersion":
            created[key] += 1
            if last.get(key[0], 0) >= key[1]:
                problems.append("feed: %s version %d after version %d" % (key[0], key[1], last[key[0]]))
            last[key[0]] = key[1]
        elif operation == "PruneTableVersion":
            created[key] -= 1
    for key in committed:
        if created[key] != 1:
            problems.append("feed: committed %s has %d created events" % (key, created[key]))
    for key, count in created.items():
        if count > 0 and key not in committed:
            problems.append("feed: event for %s, which is not committed" % (key,))
    print("checked the feed: %d events, %d version events" % (len(positions), sum(created.values())))
    return problems


def check(args):
    acked = collections.defaultdict(set)
    contents = {}
    times = []
    with open(args.ledger) as ledger:
        for line in ledger:
            entry = json.loads(line)
            key = (entry["table"], entry["version"])
            acked[key].add(entry["path"])
            contents[(key, entry["path"])] = entry["content"]
            times.append(entry["t"])
    rows = psql(args.db, "SELECT t.name, v.version, v.manifest_path FROM table_versions v"
                         " JOIN lance_tables t ON t.id = v.table_id"
                         " WHERE t.namespace = '{chaos}' AND t.dropped_at IS NULL"
                         " AND v.branch = 'main'")
    committed = {(name, int(version)): path for name, version, path in rows}
    problems = []
    for key, paths in acked.items():
        if len(paths) > 1:
            problems.append("version acknowledged with two paths: %s %s" % (key, sorted(paths)))
        for path in paths:
            if committed.get(key) != path:
                problems.append("acknowledged %s at %s, database has %s" % (key, path, committed.get(key)))
            elif not os.path.isfile("/" + path.lstrip("/")):
                problems.append("acknowledged %s but its final manifest %s is missing" % (key, path))
            elif open("/" + path.lstrip("/"), "rb").read() != lance_manifest(contents[(key, path)]):
                problems.append("final manifest of %s does not hold the staged bytes" % (key,))
    for key, path in committed.items():
        if not os.path.isfile("/" + path.lstrip("/")):
            problems.append("committed row %s without its final manifest %s" % (key, path))
    problems += check_feed(args.db, committed)
    for ended in args.recovered_after:
        later = [t - ended for t in times if t > ended]
        if not later:
            problems.append("nothing was acknowledged after the fault ended")
        else:
            print("first commit acknowledged %.1f s after the fault ended" % min(later))
            if min(later) > args.within:
                problems.append("commits resumed only %.1f s after the fault" % min(later))
    for struck in args.resumed_after:
        # The pause a fault caused: the longest silence between acknowledgements in the minute
        # after it struck (answers in flight when it struck may still arrive just after it).
        window = [struck] + sorted(t for t in times if struck < t <= struck + 60)
        if len(window) == 1:
            problems.append("nothing was acknowledged after the fault")
        else:
            pause = max(b - a for a, b in zip(window, window[1:]))
            print("acknowledgements paused at most %.1f s after the fault" % pause)
            if pause > args.within:
                problems.append("commits paused %.1f s after the fault" % pause)
    for p in problems[:20]:
        print("LOST OR WRONG: " + p)
    print("checked %d acknowledged versions against %d committed rows: %d problems"
          % (len(acked), len(committed), len(problems)))
    return 1 if problems or not acked else 0


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--url", required=True)
    r.add_argument("--key", required=True)
    r.add_argument("--tables", type=int, default=16)
    r.add_argument("--seconds", type=float, default=20)
    r.add_argument("--prefix", default="t")
    r.add_argument("--readers", type=int, default=0)
    r.add_argument("--ledger", required=True)
    c = sub.add_parser("check")
    c.add_argument("--ledger", required=True)
    c.add_argument("--db", required=True)
    c.add_argument("--recovered-after", type=float, action="append", default=[],
                   help="epoch seconds when the fault ended: commits must resume after it")
    c.add_argument("--resumed-after", type=float, action="append", default=[],
                   help="epoch seconds when the fault struck: acknowledgements may pause at most"
                        " --within seconds after it")
    c.add_argument("--within", type=float, default=10)
    args = parser.parse_args()
    sys.exit(run(args) if args.command == "run" else check(args))


if __name__ == "__main__":
    main()
