// Live calculators: a form marked data-live fetches /api/calc/NAME on every change and
// redraws the result in place. Without JavaScript the same form submits as a GET.
(function () {
  "use strict";

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function renderDerivation(d) {
    var section = el("section", { "class": "derivation", "data-calculator": d.calculator });
    section.appendChild(el("h3", null, d.title));
    var table = el("table", { "class": "chain" });
    var body = el("tbody");
    d.steps.forEach(function (s) {
      var tr = el("tr");
      tr.appendChild(el("th", { scope: "row" }, s.label));
      var td = el("td");
      td.appendChild(el("code", null, s.formula));
      if (s.substituted && s.substituted !== s.formula) {
        td.appendChild(el("br"));
        td.appendChild(el("code", null, "= " + s.substituted));
      }
      tr.appendChild(td);
      tr.appendChild(el("td", { "class": "value" }, s.display));
      body.appendChild(tr);
    });
    table.appendChild(body);
    section.appendChild(table);
    var ul = el("ul", { "class": "assumptions" });
    d.assumptions.forEach(function (a) { ul.appendChild(el("li", null, a)); });
    section.appendChild(ul);
    if (d.conclusion) section.appendChild(el("p", { "class": "conclusion" }, d.conclusion));
    return section;
  }

  function clearErrors(form) {
    form.querySelectorAll(".error[data-for]").forEach(function (p) { p.textContent = ""; });
    form.querySelectorAll("[aria-invalid]").forEach(function (i) { i.removeAttribute("aria-invalid"); });
  }

  function showErrors(form, errors) {
    errors.forEach(function (e) {
      var p = form.querySelector('.error[data-for="' + e.field + '"]') || form.querySelector(".error[data-for='_form']");
      if (p) p.textContent = e.message;
      var input = form.querySelector('[name="' + e.field + '"]');
      if (input) input.setAttribute("aria-invalid", "true");
    });
  }

  function update(form) {
    var params = new URLSearchParams();
    new FormData(form).forEach(function (v, k) { if (v !== "") params.append(k, v); });
    var url = "/api/calc/" + form.getAttribute("data-live") + "?" + params.toString();
    var out = document.getElementById(form.getAttribute("data-output"));
    fetch(url, { headers: { Accept: "application/json" } })
      .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, body: j }; }); })
      .then(function (res) {
        clearErrors(form);
        if (!res.ok) { showErrors(form, res.body.errors || []); return; }
        var d = res.body;
        document.querySelectorAll("[data-result]").forEach(function (node) {
          if (node.closest("form") && node.closest("form") !== form) return;
          var key = node.getAttribute("data-result");
          if (d.display && d.display[key] !== undefined) node.textContent = d.display[key];
        });
        var conclusion = document.querySelector("[data-conclusion]");
        if (conclusion) conclusion.textContent = d.conclusion || "";
        if (out) { out.innerHTML = ""; out.appendChild(renderDerivation(d)); }
        if (form.hasAttribute("data-sync-url")) history.replaceState(null, "", "?" + params.toString());
        var img = document.getElementById("calc-diagram");
        if (img) img.src = img.getAttribute("data-base") + "?" + params.toString();
      })
      .catch(function () { /* the no-JavaScript form still works */ });
  }

  document.querySelectorAll("form[data-live]").forEach(function (form) {
    var timer = null;
    form.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { update(form); }, 150);
    });
    form.addEventListener("change", function () { update(form); });
    form.addEventListener("submit", function (ev) { ev.preventDefault(); update(form); });
    form.setAttribute("data-ready", "1");
  });
})();
