// Live: commits per second and 503s per second, and the newest commits as they happen. A tenant's
// commits come from its change feed (Server-Sent Events, from now on); its 503s from
// GET /v1/admission. The operator sees every tenant: version creates and 503s from
// GET /admin/v1/admission, and each sink of the change feed (Kafka, NATS) with how far behind it
// is, from GET /admin/v1/sinks (absent when none is configured). Rates are over the last 10 seconds.
import { ApiError, call, tail } from "./api.js";
import { el, failed, time } from "./view.js";

const WINDOW = 10;
const NEWEST = 50;

function rate(label, id) {
  const value = el("strong", { id }, "0.0");
  return [el("div", { class: "rate" }, value, el("span", {}, label)), value];
}

function shedOf(report) {
  return (report.requesters || []).reduce((sum, requester) => sum + (requester.shed || 0), 0);
}

/** A counter read every second, as a rate over the last WINDOW seconds. */
function windowed() {
  const samples = [];
  return (count) => {
    samples.push([Date.now(), count]);
    while (samples.length > WINDOW + 1) samples.shift();
    if (samples.length < 2) return 0;
    const [t0, c0] = samples[0];
    const [t1, c1] = samples[samples.length - 1];
    return t1 > t0 ? ((c1 - c0) * 1000) / (t1 - t0) : 0;
  };
}

export function renderLive(main, who) {
  const [commitsBox, commits] = rate(who.admin ? "version creates / s (all tenants)" : "commits / s", "commits-rate");
  const [shedBox, shed] = rate(who.admin ? "503s / s (all tenants)" : "503s / s", "shed-rate");
  const list = el("tbody", { id: "live-commits" });
  const sinks = el("tbody", { id: "live-sinks" });
  const sinksBox = el("div", { class: "table-wrap", hidden: true }, el("table", {},
    el("caption", {}, "Sinks of the change feed"),
    el("thead", {}, el("tr", {}, ["Sink", "Events behind", "Published by", "Lease until"].map((c) => el("th", { scope: "col" }, c)))),
    sinks));
  main.replaceChildren(
    el("h2", {}, who.admin ? "Live, every tenant" : `Live, tenant ${who.tenant}`),
    el("div", { class: "rates" }, commitsBox, shedBox),
    who.admin ? sinksBox : null,
    who.admin ? el("p", {}, "The newest commits are shown per tenant: sign in with a tenant's key to see them.") : null,
    who.admin ? null : el("div", { class: "table-wrap" }, el("table", {},
      el("caption", {}, "Newest commits, as they happen"),
      el("thead", {}, el("tr", {}, ["Committed", "Table", "Version", "Event"].map((c) => el("th", { scope: "col" }, c)))),
      list)));
  const stop = new AbortController();
  const commitTimes = [];
  const shedRate = windowed();
  const createRate = windowed();
  const timer = setInterval(async () => {
    try {
      const report = await call("GET", who.admin ? "/admin/v1/admission" : "/v1/admission");
      shed.textContent = shedRate(shedOf(report)).toFixed(1);
      if (who.admin) commits.textContent = createRate((report.version_creates || {}).created || 0).toFixed(1);
    } catch (failure) { failed(failure); }
    if (who.admin && sinksBox.dataset.absent !== "true") {
      try {
        const described = await call("GET", "/admin/v1/sinks");
        sinks.replaceChildren(...described.sinks.map((sink) => el("tr", {},
          el("td", {}, sink.sink),
          el("td", {}, String(sink.lag_events)),
          el("td", { class: "mono" }, sink.holder || "nobody"),
          el("td", {}, sink.lease_until ? time(sink.lease_until) : ""))));
        sinksBox.hidden = described.sinks.length === 0;
      } catch (failure) {
        // No sink configured: the operation is not served, and the table stays hidden.
        if (failure instanceof ApiError && (failure.status === 404 || failure.status === 406)) sinksBox.dataset.absent = "true";
        else failed(failure);
      }
    }
    if (!who.admin) {
      const since = Date.now() - WINDOW * 1000;
      while (commitTimes.length && commitTimes[0] < since) commitTimes.shift();
      commits.textContent = (commitTimes.length / WINDOW).toFixed(1);
    }
  }, 1000);
  if (!who.admin) {
    const query = new URLSearchParams({ "continuation-token": "now" });
    query.append("operation-types", "io.lance.table.version.created");
    query.append("operation-types", "io.lance.batch.committed");
    tail(query.toString(), stop.signal, (event) => {
      if (event.type !== "io.lance.table.version.created") return;
      commitTimes.push(Date.now());
      // data is the version row as the API answers it ({"version": {...}}), or {"version": n}.
      const data = event.data && typeof event.data.version === "object" ? event.data.version : event.data || {};
      list.prepend(el("tr", {},
        el("td", {}, time(data.timestamp_millis || Date.parse(event.time))),
        el("td", { class: "mono" }, event.subject || ""),
        el("td", {}, data.version === undefined ? "" : String(data.version)),
        el("td", { class: "mono" }, event.id)));
      while (list.children.length > NEWEST) list.lastChild.remove();
    }, () => { list.dataset.tail = "open"; }).catch((failure) => { if (!stop.signal.aborted) failed(failure); });
  }
  return () => { stop.abort(); clearInterval(timer); };
}
