// Small helpers to build the page from data without HTML strings (so nothing from the API is ever
// parsed as markup).
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (value === true) node.setAttribute(name, "");
    else node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function show(message, kind = "info") {
  const status = document.getElementById("status");
  status.className = `status ${kind}`;
  status.textContent = message;
}

export function clearStatus() {
  show("");
}

export function time(millis) {
  return millis === undefined || millis === null ? "" : new Date(millis).toISOString().replace("T", " ").replace("Z", " UTC");
}

export function bytes(size) {
  if (size === undefined || size === null) return "";
  return size < 1024 ? `${size} B` : size < 1048576 ? `${(size / 1024).toFixed(1)} KiB` : `${(size / 1048576).toFixed(1)} MiB`;
}

export function table(caption, columns, rows) {
  return el("div", { class: "table-wrap" },
    el("table", {},
      el("caption", {}, caption),
      el("thead", {}, el("tr", {}, columns.map((column) => el("th", { scope: "col" }, column)))),
      el("tbody", {}, rows)));
}

/** A page's failure, shown to the user; a 401 means the credential went away: sign in again. */
export function failed(failure) {
  show(failure.message || String(failure), "error");
}
