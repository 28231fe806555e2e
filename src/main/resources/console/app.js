// The console's shell: sign-in, the sections a credential may see, and the hash routes between
// them (#/catalog, #/table/<id>, #/live, #/admin/tenants, #/admin/tenant/<name>,
// #/admin/admission). Routes name objects, never credentials.
import { forget, identity, signIn } from "./api.js";
import { clearStatus, el, failed, show } from "./view.js";
import { renderCatalog, renderTable } from "./catalog.js";
import { renderLive } from "./live.js";
import { renderAdmission, renderTenant, renderTenants } from "./admin.js";

let leave = null;

function sections(who) {
  return who.admin
    ? [["#/admin/tenants", "Tenants"], ["#/admin/admission", "Admission"], ["#/live", "Live"]]
    : [["#/catalog", "Catalog"], ["#/live", "Live"]];
}

function renderNav(who) {
  const nav = document.getElementById("nav");
  const here = location.hash || sections(who)[0][0];
  nav.replaceChildren(
    ...sections(who).map(([href, label]) =>
      el("a", { href, "aria-current": here.startsWith(href) ? "page" : false }, label)),
    el("button", { type: "button", class: "secondary", onclick: () => { forget(); location.hash = ""; route(); } }, "Sign out"));
  nav.hidden = false;
  document.getElementById("who").textContent = who.admin
    ? "Signed in as the operator (every tenant)"
    : `Tenant ${who.tenant} · ${access(who)}`;
}

function renderSignIn(main) {
  document.getElementById("nav").hidden = true;
  document.getElementById("who").textContent = "";
  const kind = el("select", { id: "kind", name: "kind" },
    el("option", { value: "key" }, "API key"), el("option", { value: "token" }, "Bearer token"));
  const secret = el("input", { id: "secret", name: "secret", type: "password", autocomplete: "off", required: true });
  const form = el("form", { class: "signin", "aria-labelledby": "signin-title" },
    el("h2", { id: "signin-title" }, "Sign in"),
    el("p", {}, "Use an API key of a tenant, the operator key, or a bearer token. It is kept in this tab only and sent as a header."),
    el("label", { for: "kind" }, "Credential"), kind,
    el("label", { for: "secret" }, "Key or token"), secret,
    el("button", { type: "submit", id: "signin" }, "Sign in"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const who = await signIn(kind.value, secret.value.trim());
      clearStatus();
      location.hash = sections(who)[0][0];
      route();
    } catch (failure) {
      show(failure.message, "error");
      secret.focus();
    }
  });
  main.replaceChildren(form);
  secret.focus();
}

async function route() {
  if (leave) { leave(); leave = null; }
  const main = document.getElementById("main");
  const who = identity();
  if (!who) { renderSignIn(main); return; }
  renderNav(who);
  const hash = location.hash || sections(who)[0][0];
  const [, section, ...rest] = hash.split("/");
  const argument = rest.length ? decodeURIComponent(rest.join("/")) : null;
  try {
    if (section === "live") leave = renderLive(main, who);
    else if (who.admin && section === "admin" && argument && argument.startsWith("tenant/")) await renderTenant(main, argument.slice(7));
    else if (who.admin && section === "admin" && argument === "admission") leave = renderAdmission(main);
    else if (who.admin) await renderTenants(main);
    else if (section === "table" && argument) await renderTable(main, who, JSON.parse(argument));
    else await renderCatalog(main, who);
  } catch (failure) {
    failed(failure);
  }
  main.focus();
}

// The skip link moves the focus to the content; as a plain #main link it would change the route.
document.querySelector(".skip").addEventListener("click", (event) => {
  event.preventDefault();
  document.getElementById("main").focus();
});
window.addEventListener("hashchange", () => { clearStatus(); route(); });
route();

// What a tenant credential may do, in words: on the whole tenant, or through its grants below it
// (the catalog then shows only what they let it read).
function access(who) {
  if (who.rights.includes("write")) return "read and write";
  if (who.rights.includes("read")) return "read only";
  const grants = who.grants.length;
  return grants === 0 ? "no rights" : `${grants} grant${grants === 1 ? "" : "s"} below the tenant`;
}
