// Burrow's docs page: renders the OpenAPI document embedded in the page
// (the element #openapi), with no other request.
(function () {
  "use strict";
  var doc = JSON.parse(document.getElementById("openapi").textContent);
  var root = document.getElementById("ops");

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function deref(s) {
    var seen = 0;
    while (s && s.$ref && seen++ < 20) {
      var parts = s.$ref.replace(/^#\//, "").split("/");
      var t = doc;
      for (var i = 0; i < parts.length && t; i++) t = t[parts[i]];
      s = t;
    }
    return s || {};
  }

  function refName(s) {
    return s && s.$ref ? s.$ref.split("/").pop() : "";
  }

  // constraints lists a schema's rules as the validator reads them.
  function constraints(s) {
    var out = [];
    var keys = ["format", "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "pattern"];
    keys.forEach(function (k) { if (s[k] !== undefined) out.push(k + " " + s[k]); });
    if (s["enum"]) out.push("one of " + s["enum"].join(" | "));
    if (s["default"] !== undefined) out.push("default " + JSON.stringify(s["default"]));
    return out.length ? " (" + out.join(", ") + ")" : "";
  }

  // shown holds the components already spelled out in the operation being
  // written: later references to one show its name only. It and groups
  // are keyed by the document's names, so they have no prototype: a name
  // such as "constructor" or "__proto__" must not find Object's members.
  var shown = Object.create(null);

  // render writes a schema as an indented, TypeScript-like outline.
  function render(s, depth, stack) {
    if (!s) return "any";
    if (s.contentSchema) return "JSON " + render(s.contentSchema, depth, stack);
    if (s.oneOf) return s.oneOf.map(function (x) { return render(x, depth, stack); }).join(" | ");
    if (s.$ref) {
      var name = refName(s);
      if (stack.indexOf(name) >= 0 || depth > 6 || shown[name]) return name;
      shown[name] = true;
      return name + " " + render(deref(s), depth, stack.concat([name]));
    }
    var type = s.type;
    if (Array.isArray(type)) type = type.join(" | ");
    var pad = new Array(depth + 2).join("  ");
    if (s.type === "object" || (Array.isArray(s.type) && s.type.indexOf("object") >= 0) || s.properties) {
      if (!s.properties) return "{ [key]: " + render(s.additionalProperties, depth, stack) + " }";
      var req = s.required || [];
      var lines = Object.keys(s.properties).map(function (k) {
        var p = s.properties[k];
        return pad + k + (req.indexOf(k) >= 0 ? "" : "?") + ": " + render(p, depth + 1, stack) + constraints(p);
      });
      return "{\n" + lines.join("\n") + "\n" + pad.slice(2) + "}";
    }
    if (s.items) return render(s.items, depth, stack) + "[]";
    return (type || "any");
  }

  function section(parent, title) {
    parent.appendChild(el("h4", "", title));
  }

  function operation(path, method, op) {
    shown = Object.create(null);
    var d = el("details", "op" + (op.deprecated ? " dep" : ""));
    if (location.hash === "#" + op.operationId || location.hash === "#all") d.open = true;
    d.id = op.operationId;
    var s = el("summary");
    s.appendChild(el("span", "m " + (method === method.toLowerCase() ? method : "other"), method));
    s.appendChild(el("span", "path", path));
    s.appendChild(el("span", "id", op.operationId));
    if (op.summary && op.summary !== method.toUpperCase() + " " + path) s.appendChild(el("span", "sum", op.summary));
    if (op.deprecated) s.appendChild(el("span", "muted", "deprecated"));
    if (op.security && op.security.length) {
      var names = [];
      op.security.forEach(function (r) { names = names.concat(Object.keys(r)); });
      s.appendChild(el("span", "lock", "auth: " + names.join(" + ")));
    }
    d.appendChild(s);
    var b = el("div", "body");
    if (op.description) b.appendChild(el("p", "", op.description));
    b.appendChild(el("p", "muted", "Context: " + (op["x-burrow-context"] || "")));
    if (op.parameters && op.parameters.length) {
      section(b, "Parameters");
      var t = el("table");
      op.parameters.forEach(function (p) {
        var tr = el("tr");
        tr.appendChild(el("td", "", "")).appendChild(el("code", "", p.name + (p.required ? "" : "?")));
        tr.appendChild(el("td", "muted", p["in"]));
        tr.appendChild(el("td", "", render(p.schema, 0, []) + constraints(p.schema || {})));
        t.appendChild(tr);
      });
      b.appendChild(t);
    }
    if (op.requestBody) {
      section(b, "Body" + (op.requestBody.required ? "" : " (optional)"));
      Object.keys(op.requestBody.content || {}).forEach(function (mt) {
        b.appendChild(el("div", "muted", mt));
        b.appendChild(el("pre", "", render(op.requestBody.content[mt].schema, 0, [])));
      });
    }
    var up = op["x-burrow-upgrade"];
    if (up) {
      section(b, "Messages (" + up.protocol + ")");
      [["receive", "from the client"], ["send", "from the server"]].forEach(function (m) {
        if (up[m[0]]) b.appendChild(el("pre", "", m[1] + "  " + render(up[m[0]].schema, 0, [])));
      });
    }
    section(b, "Responses");
    Object.keys(op.responses).sort().forEach(function (code) {
      var r = deref(op.responses[code]);
      var row = el("div");
      row.appendChild(el("span", "status", code + " "));
      row.appendChild(el("span", "", r.description || ""));
      if (r.headers) row.appendChild(el("span", "muted", " headers: " + Object.keys(r.headers).join(", ")));
      b.appendChild(row);
      Object.keys(r.content || {}).forEach(function (mt) {
        var m = r.content[mt];
        var shape = m.itemSchema ? "stream of " + render(m.itemSchema, 0, []) : render(m.schema, 0, []);
        b.appendChild(el("pre", "", mt + "  " + shape));
      });
    });
    d.appendChild(b);
    return d;
  }

  var groups = Object.create(null), order = [];
  Object.keys(doc.paths || {}).sort().forEach(function (path) {
    var item = doc.paths[path], extra = item.additionalOperations || {};
    var ops = ["get", "query", "put", "post", "patch", "delete", "head", "options", "trace"].filter(function (m) {
      return item[m];
    }).map(function (m) { return [m, item[m]]; });
    Object.keys(extra).sort().forEach(function (m) { ops.push([m, extra[m]]); });
    ops.forEach(function (pair) {
      var op = pair[1];
      var tags = op.tags && op.tags.length ? op.tags : ["Operations"];
      tags.forEach(function (t) {
        if (!groups[t]) { groups[t] = []; order.push(t); }
        groups[t].push(operation(path, pair[0], op));
      });
    });
  });
  order.forEach(function (t) {
    root.appendChild(el("h2", "", t));
    groups[t].forEach(function (op) { root.appendChild(op); });
  });
  if (!order.length) root.appendChild(el("p", "muted", "No operations."));
})();
