// The operator's pages: tenants (create, disable, enable), a tenant's keys (issue with rights, the
// secret shown once; revoke) and its audit trail a page at a time, and the admission state.
import { call } from "./api.js";
import { el, failed, show, table, time } from "./view.js";

const PAGE = 50;

function tenantPath(name) {
  return `/admin/v1/tenants/${encodeURIComponent(name)}`;
}

async function tenantsPage(body, pager, after) {
  const query = new URLSearchParams({ limit: String(PAGE) });
  if (after) query.set("after", after);
  const page = await call("GET", `/admin/v1/tenants?${query}`);
  for (const tenant of page.tenants || []) {
    const action = tenant.disabled ? "enable" : "disable";
    body.append(el("tr", {},
      el("td", {}, el("a", { href: `#/admin/tenant/${encodeURIComponent(tenant.name)}` }, tenant.name)),
      el("td", {}, tenant.disabled ? "disabled" : "enabled"),
      el("td", {}, time(tenant.created_at)),
      el("td", {}, el("button", {
        type: "button", class: tenant.disabled ? "secondary" : "danger",
        "aria-label": `${action === "enable" ? "Enable" : "Disable"} tenant ${tenant.name}`,
        onclick: async () => {
          try {
            await call("POST", `${tenantPath(tenant.name)}/${action}`);
            show(`Tenant ${tenant.name} is ${action}d.`, "ok");
            await renderTenants(document.getElementById("main"));
          } catch (failure) { failed(failure); }
        },
      }, action === "enable" ? "Enable" : "Disable"))));
  }
  pager.replaceChildren();
  if (page.next) {
    pager.append(el("button", { type: "button", class: "secondary", onclick: () => tenantsPage(body, pager, page.next).catch(failed) }, "More tenants"));
  }
}

export async function renderTenants(main) {
  const name = el("input", { id: "tenant-name", name: "name", required: true, pattern: "[A-Za-z0-9][A-Za-z0-9_.-]{0,63}" });
  const form = el("form", { class: "inline", "aria-label": "Create a tenant" },
    el("div", {}, el("label", { for: "tenant-name" }, "New tenant"), name),
    el("button", { type: "submit" }, "Create tenant"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await call("POST", "/admin/v1/tenants", { name: name.value });
      show(`Tenant ${name.value} created.`, "ok");
      await renderTenants(main);
    } catch (failure) { failed(failure); }
  });
  const body = el("tbody", {});
  const pager = el("div", { class: "pager" });
  main.replaceChildren(el("h2", {}, "Tenants"), form,
    table("Tenants", ["Tenant", "State", "Created", "Action"], [body]), pager);
  await tenantsPage(body, pager);
}

function issueForm(tenant, reload) {
  const write = el("input", { id: "key-write", type: "checkbox", name: "write" });
  const form = el("form", { class: "inline", "aria-label": "Issue a key" },
    el("div", {}, el("label", { for: "key-write" }, "May write"), write),
    el("button", { type: "submit", id: "issue-key" }, "Issue key"));
  const secretBox = el("div", { id: "new-key", "aria-live": "polite" });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const issued = await call("POST", `${tenantPath(tenant)}/keys`, { scopes: write.checked ? ["read", "write"] : ["read"] });
      await reload();
      secretBox.replaceChildren(el("p", { class: "secret" }, "The new key, shown this once: ",
        el("code", { id: "new-key-secret", class: "mono" }, issued.api_key)));
    } catch (failure) { failed(failure); }
  });
  return [form, secretBox];
}

async function keys(tenant, box) {
  const listed = await call("GET", `${tenantPath(tenant)}/keys`);
  const rows = (listed.keys || []).map((key) => el("tr", {},
    el("td", { class: "mono" }, key.key_id),
    el("td", {}, (key.scopes || []).join(", ")),
    el("td", {}, time(key.created_at)),
    el("td", {}, key.last_used_at ? time(key.last_used_at) : "never"),
    el("td", {}, el("button", {
      type: "button", class: "danger", "aria-label": `Revoke key ${key.key_id}`,
      onclick: async () => {
        try {
          await call("DELETE", `${tenantPath(tenant)}/keys/${encodeURIComponent(key.key_id)}`);
          show(`Key ${key.key_id} revoked.`, "ok");
          await keys(tenant, box);
        } catch (failure) { failed(failure); }
      },
    }, "Revoke"))));
  box.replaceChildren(rows.length ? table("Keys", ["Key", "Rights", "Created", "Last used", "Action"], rows) : el("p", {}, "No keys."));
}

async function auditPage(tenant, body, pager, after) {
  const query = new URLSearchParams({ limit: String(PAGE) });
  if (after) query.set("after", after);
  const page = await call("GET", `${tenantPath(tenant)}/audit?${query}`);
  for (const event of page.events || []) {
    body.append(el("tr", {},
      el("td", {}, time(event.at)), el("td", {}, event.operation), el("td", { class: "mono" }, event.object),
      el("td", {}, event.credential), el("td", { class: "mono" }, event.request_id)));
  }
  pager.replaceChildren();
  if (page.next) {
    pager.append(el("button", { type: "button", class: "secondary", onclick: () => auditPage(tenant, body, pager, page.next).catch(failed) }, "More events"));
  }
}

export async function renderTenant(main, tenant) {
  const keyBox = el("div", { id: "keys" });
  const reload = () => keys(tenant, keyBox);
  const auditBody = el("tbody", {});
  const auditPager = el("div", { class: "pager" });
  main.replaceChildren(
    el("p", {}, el("a", { href: "#/admin/tenants" }, "Tenants"), ` / ${tenant}`),
    el("h2", {}, `Tenant ${tenant}`),
    el("h3", {}, "Keys"), ...issueForm(tenant, reload), keyBox,
    el("h3", {}, "Audit trail, oldest first"),
    table("Audit trail", ["At", "Operation", "Object", "Credential", "Request"], [auditBody]), auditPager);
  await reload();
  await auditPage(tenant, auditBody, auditPager);
}

export function renderAdmission(main) {
  const classes = el("div", {});
  const requesters = el("div", {});
  main.replaceChildren(el("h2", {}, "Admission"),
    el("p", {}, "This gateway's limits in use and, per requester, the requests admitted and shed since it started, with the shed rate over the last poll."),
    classes, requesters);
  let previous = new Map();
  let previousAt = 0;
  const refresh = async () => {
    try {
      const report = await call("GET", "/admin/v1/admission");
      const now = Date.now();
      classes.replaceChildren(table("Classes", ["Class", "Limit", "In flight", "Waiting"],
        report.classes.map((c) => el("tr", {}, el("td", {}, c.class), el("td", {}, String(c.limit)), el("td", {}, String(c.in_flight)), el("td", {}, String(c.waiting))))));
      const seconds = previousAt ? (now - previousAt) / 1000 : 0;
      requesters.replaceChildren(table("Requesters", ["Requester", "Admitted", "Shed", "Shed / s", "Shed by reason"],
        report.requesters.map((r) => el("tr", {},
          el("td", {}, r.requester), el("td", {}, String(r.admitted)), el("td", {}, String(r.shed)),
          el("td", {}, seconds && previous.has(r.requester) ? ((r.shed - previous.get(r.requester)) / seconds).toFixed(1) : "–"),
          el("td", {}, Object.entries(r.shed_by_reason || {}).map(([k, v]) => `${k} ${v}`).join(", "))))));
      previous = new Map(report.requesters.map((r) => [r.requester, r.shed]));
      previousAt = now;
    } catch (failure) { failed(failure); }
  };
  refresh();
  const timer = setInterval(refresh, 2000);
  return () => clearInterval(timer);
}
