// The tenant's catalog: namespaces as a tree (children and tables loaded a page at a time when a
// namespace opens), and a table's page: its location, its versions newest first a page at a time,
// their timeline, branches, tags, and the transaction behind a version.
import { call, objectPath } from "./api.js";
import { bytes, el, failed, show, table, time } from "./view.js";

const PAGE = 100;
const VERSIONS_PAGE = 50;

function tableLink(parts) {
  return `#/table/${encodeURIComponent(JSON.stringify(parts))}`;
}

/** One page of names under a namespace (namespaces or tables), with a button for the next page. */
async function listPage(list, parts, what, token) {
  const id = parts.length ? objectPath(parts) : "%24";
  const path = what === "namespaces" ? `/v1/namespace/${id}/list` : `/v1/namespace/${id}/table/list`;
  const query = new URLSearchParams({ limit: String(PAGE) });
  if (token) query.set("page_token", token);
  const page = await call("GET", `${path}?${query}`);
  for (const name of page[what] || []) {
    list.append(what === "namespaces" ? namespaceItem([...parts, name]) : tableItem([...parts, name]));
  }
  if (page.page_token) {
    const more = el("li", {}, el("button", {
      type: "button", class: "secondary",
      onclick: async () => { more.remove(); await listPage(list, parts, what, page.page_token).catch(failed); },
    }, `More ${what}`));
    list.append(more);
  }
}

function tableItem(parts) {
  return el("li", {}, el("a", { href: tableLink(parts) }, parts[parts.length - 1]), el("span", { class: "kind" }, "table"));
}

function namespaceItem(parts) {
  const children = el("ul", { class: "tree", hidden: true });
  const name = parts[parts.length - 1];
  const toggle = el("button", { type: "button", class: "toggle", "aria-expanded": "false" }, `▸ ${name}`);
  let loaded = false;
  toggle.addEventListener("click", async () => {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    toggle.textContent = `${open ? "▾" : "▸"} ${name}`;
    children.hidden = !open;
    if (open && !loaded) {
      loaded = true;
      try {
        await listPage(children, parts, "namespaces");
        await listPage(children, parts, "tables");
        if (!children.children.length) children.append(el("li", { class: "kind" }, "empty"));
      } catch (failure) { failed(failure); }
    }
  });
  return el("li", {}, toggle, el("span", { class: "kind" }, "namespace"), children);
}

function namespaceForm(main, who) {
  const name = el("input", { id: "namespace-name", name: "namespace", required: true });
  const form = el("form", { class: "inline", id: "namespace-form", "aria-label": "Create a namespace" },
    el("div", {}, el("label", { for: "namespace-name" }, "New namespace"), name),
    el("button", { type: "submit" }, "Create namespace"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await call("POST", `/v1/namespace/${objectPath([name.value])}/create`, {});
      show(`Namespace ${name.value} created.`, "ok");
      await renderCatalog(main, who);
    } catch (failure) { failed(failure); }
  });
  return form;
}

export async function renderCatalog(main, who) {
  const tree = el("ul", { class: "tree root", "aria-label": "Namespaces" });
  main.replaceChildren(el("h2", {}, "Catalog"), who.rights.includes("write") ? namespaceForm(main, who) : null, tree);
  await listPage(tree, [], "namespaces");
  if (!tree.children.length) tree.append(el("li", {}, "No namespaces yet."));
}

function versionRow(parts, version) {
  const uuid = version.metadata && version.metadata.lance_transaction_uuid;
  const cell = uuid
    ? el("button", { type: "button", class: "secondary", onclick: () => describeTransaction(uuid) }, uuid)
    : "";
  return el("tr", {},
    el("td", {}, String(version.version)),
    el("td", { class: "path" }, version.manifest_path),
    el("td", {}, bytes(version.manifest_size)),
    el("td", {}, time(version.timestamp_millis)),
    el("td", { class: "mono" }, cell));
}

async function describeTransaction(uuid) {
  try {
    const answer = await call("POST", `/v1/transaction/${encodeURIComponent(uuid)}/describe`, {});
    const box = document.getElementById("transaction");
    box.replaceChildren(el("h3", {}, `Transaction ${uuid}`), el("pre", { class: "mono" }, JSON.stringify(answer, null, 2)));
    box.focus();
  } catch (failure) { failed(failure); }
}

async function versionsPage(parts, body, timeline, token) {
  const query = new URLSearchParams({ limit: String(VERSIONS_PAGE), descending: "true" });
  if (token) query.set("page_token", token);
  const page = await call("POST", `/v1/table/${objectPath(parts)}/version/list?${query}`, {});
  for (const version of page.versions || []) {
    body.append(versionRow(parts, version));
    timeline.append(el("li", {}, `v${version.version} · ${time(version.timestamp_millis)}`));
  }
  const pager = document.getElementById("versions-pager");
  pager.replaceChildren();
  if (page.page_token) {
    pager.append(el("button", {
      type: "button", class: "secondary", id: "older-versions",
      onclick: () => versionsPage(parts, body, timeline, page.page_token).catch(failed),
    }, "Older versions"));
  }
}

function tagForm(parts, reload) {
  const name = el("input", { id: "tag-name", name: "tag", required: true });
  const version = el("input", { id: "tag-version", name: "version", type: "number", min: "0", required: true });
  const form = el("form", { class: "inline", id: "tag-form", "aria-label": "Create a tag" },
    el("div", {}, el("label", { for: "tag-name" }, "Tag"), name),
    el("div", {}, el("label", { for: "tag-version" }, "Version"), version),
    el("button", { type: "submit" }, "Create tag"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await call("POST", `/v1/table/${objectPath(parts)}/tags/create`, { tag: name.value, version: Number(version.value) });
      show(`Tag ${name.value} now points at version ${version.value}.`, "ok");
      await reload();
    } catch (failure) { failed(failure); }
  });
  return form;
}

async function tagsAndBranches(parts, box, who) {
  const id = objectPath(parts);
  // A gateway that only records versions keeps no tags (406): the table's storage holds them.
  const [tags, branches] = await Promise.all([
    call("POST", `/v1/table/${id}/tags/list`, {}).catch((failure) => {
      if (failure.status === 406) return null;
      throw failure;
    }),
    call("POST", `/v1/table/${id}/branches/list`, {}),
  ]);
  if (tags === null) {
    box.replaceChildren(el("h3", {}, "Tags"), el("p", {}, "This gateway records versions only; the table's tags live in its storage."),
      ...branchList(branches));
    return;
  }
  const tagRows = Object.entries(tags.tags || {}).map(([name, tag]) =>
    el("tr", {}, el("td", {}, name), el("td", {}, String(tag.version))));
  box.replaceChildren(
    el("h3", {}, "Tags"),
    tagRows.length ? table("Tags", ["Tag", "Version"], tagRows) : el("p", {}, "No tags."),
    who.rights.includes("write") ? tagForm(parts, () => tagsAndBranches(parts, box, who)) : null,
    ...branchList(branches));
}

function branchList(branches) {
  const names = Object.keys(branches.branches || {});
  return [el("h3", {}, "Branches"),
    names.length ? el("ul", {}, names.map((branch) => el("li", {}, branch))) : el("p", {}, "Only main.")];
}

export async function renderTable(main, who, parts) {
  const described = await call("POST", `/v1/table/${objectPath(parts)}/describe`, {});
  const body = el("tbody", {});
  const timeline = el("ol", { class: "timeline", "aria-label": "Version timeline, newest first" });
  const extra = el("section", { "aria-label": "Tags and branches" });
  main.replaceChildren(
    el("p", {}, el("a", { href: "#/catalog" }, "Catalog"), ` / ${parts.join(" / ")}`),
    el("h2", {}, `Table ${parts[parts.length - 1]}`),
    el("dl", { class: "facts" },
      el("dt", {}, "Namespace"), el("dd", {}, parts.slice(0, -1).join(" / ") || "(root)"),
      el("dt", {}, "Location"), el("dd", { class: "mono", id: "location" }, described.location || ""),
      el("dt", {}, "Latest version"), el("dd", {}, described.version === undefined ? "none" : String(described.version))),
    el("h3", {}, "Timeline"), timeline,
    el("h3", {}, "Versions"),
    el("div", { class: "table-wrap" }, el("table", { id: "versions" },
      el("caption", {}, "Versions, newest first"),
      el("thead", {}, el("tr", {}, ["Version", "Manifest", "Size", "Committed", "Transaction"].map((c) => el("th", { scope: "col" }, c)))),
      body)),
    el("div", { class: "pager", id: "versions-pager" }),
    el("section", { id: "transaction", tabindex: "-1", "aria-live": "polite" }),
    extra);
  await versionsPage(parts, body, timeline);
  await tagsAndBranches(parts, extra, who);
}
