// Live calculators: a form marked data-live fetches /api/calc/NAME on every change and
// redraws the result in place. Without JavaScript the same form submits as a GET.
(function () {
  // 600 -> "10 min", 7200 -> "2 h", 172800 -> "2 days": a learning step reads as minutes.
  function inWords(seconds) {
    if (seconds < 3600) return Math.max(1, Math.round(seconds / 60)) + " min";
    if (seconds < 86400) return Math.round(seconds / 3600) + " h";
    var days = Math.round(seconds / 86400);
    return days + (days === 1 ? " day" : " days");
  }

  "use strict";

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // The engine writes for the command line ("give --model"); the form's fields carry the same
  // names without the dashes (src/web/wording.h does the same on the server).
  function withoutFlags(text) {
    return String(text).replace(/(^|[\s(\/])--([a-z][a-z0-9-]*)/g, "$1\u2018$2\u2019");
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
    d.assumptions.forEach(function (a) { ul.appendChild(el("li", null, withoutFlags(a))); });
    section.appendChild(ul);
    if (d.conclusion) section.appendChild(el("p", { "class": "conclusion" }, withoutFlags(d.conclusion)));
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

  // What the server takes in one request (its body limit, README "Security"): an upload is
  // refused before it is sent with the words the server's 413 uses.
  var BODY_LIMIT = 1048576;
  var LIMIT_WORDS = "1 MiB (1,048,576 bytes)";

  // An error leaves no number from an earlier answer on the page: the figures, the conclusion
  // and the worked chain are emptied (issue 33 item 5: a stale result sat beside the error).
  function clearResults(form) {
    document.querySelectorAll("[data-result]").forEach(function (node) {
      if (node.closest("form") && node.closest("form") !== form) return;
      node.textContent = "\u2014";
    });
    var conclusion = document.querySelector("[data-conclusion]");
    if (conclusion) conclusion.textContent = "";
    var out = document.getElementById(form.getAttribute("data-output"));
    if (out) out.innerHTML = "";
  }

  function refuse(form, errors) {
    clearErrors(form);
    clearResults(form);
    showErrors(form, errors);
  }

  function update(form) {
    var params = new URLSearchParams();
    new FormData(form).forEach(function (v, k) { if (v !== "") params.append(k, v); });
    var url = "/api/calc/" + form.getAttribute("data-live") + "?" + params.toString();
    var out = document.getElementById(form.getAttribute("data-output"));
    // A pasted or uploaded config.json replaces the model: POST it with the other inputs.
    var pasted = document.querySelector('textarea[data-config-for="' + form.getAttribute("data-live") + '"]');
    var request = { headers: { Accept: "application/json" } };
    if (pasted && pasted.value.trim() !== "") {
      var config;
      try { config = JSON.parse(pasted.value); } catch (e) {
        refuse(form, [{ field: "", message: "the config.json is not valid JSON: " + e.message }]);
        return;
      }
      var body = { config: config };
      params.forEach(function (v, k) { if (k !== "model") body[k] = v; });
      url = "/api/calc/" + form.getAttribute("data-live");
      request = { method: "POST", headers: { Accept: "application/json", "Content-Type": "application/json" }, body: JSON.stringify(body) };
    }
    if (request.body && new Blob([request.body]).size > BODY_LIMIT) {
      refuse(form, [{ field: "", message: "request body larger than " + LIMIT_WORDS + ": this config.json makes " +
                     new Blob([request.body]).size.toLocaleString("en-US") + " bytes" }]);
      return;
    }
    fetch(url, request)
      // A refusal that is not JSON (the server's 413 and 503 are plain text) is shown as it is.
      .then(function (r) {
        return r.text().then(function (t) {
          try { return { ok: r.ok, body: JSON.parse(t) }; } catch (e) {
            return { ok: false, body: { errors: [{ field: "", message: t.trim() || ("the server answered " + r.status) }] } };
          }
        });
      })
      .then(function (res) {
        clearErrors(form);
        if (!res.ok) { refuse(form, res.body.errors || [{ field: "", message: "the server refused the request" }]); return; }
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
      .catch(function () { refuse(form, [{ field: "", message: "the server could not be reached; the form still works without JavaScript" }]); });
  }

  // Signed-in features on pages that are the same for everyone: the nav, and on a question
  // the grade buttons, the bookmark and the private note. State changes carry X-CSRF-Token.
  function post(url, method, csrf, body) {
    return fetch(url, { method: method, headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
                        body: JSON.stringify(body), credentials: "same-origin" })
      .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, body: j }; }); });
  }
  var practice = document.getElementById("practice");
  var slug = practice ? practice.getAttribute("data-slug") : null;
  fetch("/api/me" + (slug ? "?slug=" + encodeURIComponent(slug) : ""), { credentials: "same-origin" })
    .then(function (r) { return r.json(); })
    .then(function (me) {
      if (!me.signed_in) return;
      var nav = document.getElementById("nav-account");
      if (nav) { nav.textContent = "Progress"; nav.setAttribute("href", "/dashboard"); }
      if (!practice) return;
      practice.hidden = false;
      var hint = document.getElementById("practice-signin");
      if (hint) hint.hidden = true;
      var status = document.getElementById("practice-status");
      if (me.card) status.textContent = "Next review due " + new Date(me.card.due * 1000).toDateString() + ".";
      practice.querySelectorAll("[data-grade]").forEach(function (b) {
        b.addEventListener("click", function () {
          post("/api/reviews", "POST", me.csrf_token, { slug: slug, grade: Number(b.getAttribute("data-grade")) })
            .then(function (res) {
              status.textContent = res.ok ? "Saved: next review in " + inWords(res.body.due_in_seconds) + "."
                : (res.body.errors || [{ message: "not saved" }])[0].message;
            });
        });
      });
      var mark = document.getElementById("bookmark");
      var on = !!me.bookmarked;
      mark.textContent = on ? "Remove bookmark" : "Bookmark";
      mark.addEventListener("click", function () {
        post("/api/bookmarks", "POST", me.csrf_token, { slug: slug, on: !on }).then(function (res) {
          if (res.ok) { on = !on; mark.textContent = on ? "Remove bookmark" : "Bookmark"; }
          status.textContent = res.ok ? (on ? "Bookmarked." : "Bookmark removed.") : "Bookmark not saved.";
        });
      });
      var note = document.getElementById("note");
      fetch("/api/notes/" + encodeURIComponent(slug), { credentials: "same-origin" })
        .then(function (r) { return r.json(); }).then(function (j) { note.value = j.body || ""; });
      document.getElementById("save-note").addEventListener("click", function () {
        post("/api/notes/" + encodeURIComponent(slug), "PUT", me.csrf_token, { body: note.value }).then(function (res) {
          status.textContent = res.ok ? "Note saved." : "Note not saved.";
        });
      });
    })
    .catch(function () {});

  // The review page: space reveals the first item, 1 to 4 grade it.
  if (document.querySelector(".review-item")) {
    document.addEventListener("keydown", function (ev) {
      if (ev.target.tagName === "INPUT" || ev.target.tagName === "TEXTAREA") return;
      var item = document.querySelector(".review-item");
      if (!item) return;
      if (ev.key === " ") { ev.preventDefault(); item.querySelector("details").open = true; }
      if (/^[1-4]$/.test(ev.key)) {
        var button = item.querySelector('button[data-key="' + ev.key + '"]');
        if (button) button.click();
      }
    });
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

  // The readiness check's countdown: minutes and seconds left until the deadline the server set.
  // Counted from the seconds left when the page was made, so a visitor's clock set wrong does
  // not move the deadline.
  var deadline = document.getElementById("deadline");
  var countdown = document.getElementById("countdown");
  if (deadline && countdown) {
    var end = Date.now() + Number(deadline.getAttribute("data-seconds-left")) * 1000;
    var tick = function () {
      var left = Math.max(0, Math.round((end - Date.now()) / 1000));
      countdown.textContent = left > 0 ? Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0") + " left" : "time is up";
      if (left > 0) setTimeout(tick, 1000);
    };
    tick();
  }

  // Sortable tables (the hardware catalog): each column heading becomes a button that sorts
  // the rows by it, numbers by their data-sort key, text by its words; aria-sort says which
  // column and which way, so a screen reader hears the order (issue 33 item 8).
  document.querySelectorAll("table[data-sortable]").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, column) {
      var button = el("button", { type: "button", "class": "sort" }, th.textContent);
      th.textContent = "";
      th.appendChild(button);
      button.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var numeric = th.getAttribute("data-sort-type") === "number";
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var key = function (row) {
          var cell = row.cells[column];
          return numeric ? Number((cell.getAttribute("data-sort") || "0").replace(/,/g, "")) : cell.textContent.trim().toLowerCase();
        };
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          var order = numeric ? x - y : (x < y ? -1 : x > y ? 1 : 0);
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });

  // The readiness check's answers survive a refresh: kept in sessionStorage under the check's
  // mac while it runs, put back when the same check is shown again, dropped when it is sent.
  var check = document.getElementById("readiness-form");
  if (check && window.sessionStorage) {
    var key = "ridge-readiness-" + check.getAttribute("data-key");
    var saved = {};
    try { saved = JSON.parse(sessionStorage.getItem(key) || "{}"); } catch (e) { saved = {}; }
    check.querySelectorAll("input[name^='a']").forEach(function (input) {
      var value = saved[input.name];
      if (value === undefined) return;
      if (input.type === "radio") input.checked = input.value === value; else input.value = value;
    });
    var keep = function (ev) {
      var input = ev.target;
      if (!input.name || input.name.charAt(0) !== "a") return;
      saved[input.name] = input.value;
      try { sessionStorage.setItem(key, JSON.stringify(saved)); } catch (e) { /* full or disabled: the answers stay on the page */ }
    };
    check.addEventListener("input", keep);
    check.addEventListener("change", keep);
    check.addEventListener("submit", function () { sessionStorage.removeItem(key); });
  }

  // Reading an uploaded config.json into its textarea, then recomputing.
  document.querySelectorAll("input[data-config-file-for]").forEach(function (input) {
    input.addEventListener("change", function () {
      var file = input.files && input.files[0];
      var area = document.getElementById(input.getAttribute("data-config-file-for"));
      if (!file || !area) return;
      if (file.size > BODY_LIMIT) {
        area.value = "";
        var owner = document.querySelector('form[data-live="' + area.getAttribute("data-config-for") + '"]');
        if (owner) refuse(owner, [{ field: "", message: "request body larger than " + LIMIT_WORDS + ": this config.json is " + file.size.toLocaleString("en-US") + " bytes" }]);
        input.value = "";
        return;
      }
      file.text().then(function (text) { area.value = text; area.dispatchEvent(new Event("input", { bubbles: true })); });
    });
  });
  document.querySelectorAll("textarea[data-config-for]").forEach(function (area) {
    var form = document.querySelector('form[data-live="' + area.getAttribute("data-config-for") + '"]');
    var timer = null;
    area.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { if (form) update(form); }, 300);
    });
  });

  // The search box suggests as you type (GET /api/search): an ARIA combobox with a listbox,
  // arrows move through the suggestions, Enter opens the one chosen (or searches), Escape closes.
  var box = document.getElementById("nav-q");
  if (box) {
    var list = el("ul", { id: "nav-suggest", role: "listbox", "aria-label": "Suggestions", "class": "suggest" });
    list.hidden = true;
    box.parentNode.appendChild(list);
    box.setAttribute("role", "combobox");
    box.setAttribute("aria-autocomplete", "list");
    box.setAttribute("aria-controls", "nav-suggest");
    box.setAttribute("aria-expanded", "false");
    box.setAttribute("autocomplete", "off");
    var active = -1, asked = 0, suggestTimer = null;
    var options = function () { return list.querySelectorAll("[role=option]"); };
    var close = function () {
      list.hidden = true;
      box.setAttribute("aria-expanded", "false");
      box.removeAttribute("aria-activedescendant");
      active = -1;
    };
    var highlight = function (i) {
      var opts = options();
      if (!opts.length) return;
      active = (i + opts.length) % opts.length;
      opts.forEach(function (o, k) { o.setAttribute("aria-selected", k === active ? "true" : "false"); });
      box.setAttribute("aria-activedescendant", opts[active].id);
    };
    var suggest = function () {
      var q = box.value.trim();
      if (q.length < 2) { close(); return; }
      var ticket = ++asked;
      fetch("/api/search?limit=8&q=" + encodeURIComponent(q), { headers: { Accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (j) {
          if (!j || ticket !== asked) return;  // a later keystroke's answer wins
          // A reader already moving through the list keeps their place when a later answer
          // replaces it (the answer to "kv c" can arrive after ArrowDown, then "kv cach"'s).
          var kept = list.hidden ? -1 : active;
          list.innerHTML = "";
          active = -1;
          box.removeAttribute("aria-activedescendant");
          j.results.forEach(function (h, k) {
            var li = el("li", { id: "nav-suggest-" + k, role: "option", "aria-selected": "false", "data-href": h.url });
            li.appendChild(el("span", null, h.title));
            li.appendChild(el("span", { "class": "muted" }, " " + (h.kind === "question" ? h.difficulty : "concept")));
            li.addEventListener("mousedown", function (ev) { ev.preventDefault(); location.href = h.url; });
            list.appendChild(li);
          });
          if (j.total > j.results.length) {
            list.appendChild(el("li", { id: "nav-suggest-all", role: "option", "aria-selected": "false",
                                        "data-href": "/search?q=" + encodeURIComponent(q) }, "All " + j.total + " results"));
          }
          list.hidden = j.results.length === 0;
          box.setAttribute("aria-expanded", list.hidden ? "false" : "true");
          if (kept >= 0 && !list.hidden) highlight(Math.min(kept, options().length - 1));
        })
        .catch(function () {});
    };
    box.addEventListener("input", function () { clearTimeout(suggestTimer); suggestTimer = setTimeout(suggest, 120); });
    box.addEventListener("keydown", function (ev) {
      if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
        if (list.hidden) return;
        ev.preventDefault();
        highlight(active + (ev.key === "ArrowDown" ? 1 : -1));
      } else if (ev.key === "Escape") {
        // Escape also drops the suggestions still on their way (a keystroke's timer, an answer in
        // flight): a late answer must not reopen the list the reader just closed.
        clearTimeout(suggestTimer);
        ++asked;
        if (list.hidden) return;
        ev.preventDefault();  // the first Escape closes the list and keeps the words
        close();
      } else if (ev.key === "Enter" && active >= 0 && !list.hidden) {
        ev.preventDefault();
        location.href = options()[active].getAttribute("data-href");
      }
    });
    box.addEventListener("blur", function () { setTimeout(close, 100); });
  }

  // List filters: difficulty, track, company, free, and for a signed-in visitor the card
  // state and bookmarks, which also mark each question in the list.
  var filters = document.querySelector("form[data-filter-list]");
  if (filters) {
    var states = {}, marked = {};
    var apply = function () {
      var f = new FormData(filters);
      var shown = 0, total = 0;
      document.querySelectorAll("ol.questions > li[data-slug]").forEach(function (li) {
        var ok = (!f.get("difficulty") || li.dataset.difficulty === f.get("difficulty")) &&
                 (!f.get("track") || (" " + li.dataset.tracks + " ").indexOf(" " + f.get("track") + " ") >= 0) &&
                 (!f.get("company") || (" " + li.dataset.companies + " ").indexOf(" " + f.get("company") + " ") >= 0) &&
                 (!f.get("free") || li.dataset.free === "1") &&
                 (!f.get("bookmarked") || marked[li.dataset.slug]) &&
                 (!f.get("state") || (states[li.dataset.slug] || "new") === f.get("state"));
        li.hidden = !ok;
        total += 1;
        shown += ok ? 1 : 0;
      });
      var count = filters.querySelector("[data-filter-count]");
      if (count) count.textContent = shown + " of " + total + " shown";
    };
    filters.addEventListener("change", apply);
    filters.addEventListener("submit", function (ev) { ev.preventDefault(); apply(); });
    fetch("/api/reviews/due?all=1", { credentials: "same-origin" })
      .then(function (r) { return r.json().then(function (j) { return r.ok ? j : null; }); })  // read the body either way
      .then(function (j) {
        if (!j) return;
        (j.due || []).forEach(function (c) { if (c && c.slug) states[c.slug] = c.state; });
        (j.bookmarks || []).forEach(function (s) { marked[s] = true; });
        document.querySelectorAll("[data-signed-in]").forEach(function (node) { node.hidden = false; });
        document.querySelectorAll("ol.questions > li[data-slug]").forEach(function (li) {
          var state = states[li.dataset.slug] || "new";
          li.dataset.state = state;
          var link = li.querySelector("a");
          var tag = el("span", { "class": "tag state state-" + state, "data-state-tag": state }, state);
          link.parentNode.insertBefore(tag, link.nextSibling);
          link.parentNode.insertBefore(document.createTextNode(" "), tag);
          if (marked[li.dataset.slug]) {
            var star = el("span", { "class": "tag bookmarked", "data-bookmark-tag": "1" }, "bookmarked");
            tag.parentNode.insertBefore(star, tag.nextSibling);
          }
        });
        filters.setAttribute("data-states-ready", "1");
        apply();
      })
      .catch(function () {});
    apply();
  }
})();

// The home page's weekly-question form: with JavaScript it posts to /api/subscribe and says
// what happened in place; without, it opens /subscribe, whose own form does the same.
(function () {
  "use strict";
  document.querySelectorAll("form[data-subscribe]").forEach(function (form) {
    var status = form.querySelector("[data-subscribe-status]");
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var email = form.querySelector('input[name="email"]').value;
      fetch("/api/subscribe", { method: "POST", headers: { "Content-Type": "application/json" }, credentials: "same-origin",
                                body: JSON.stringify({ email: email }) })
        .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, body: j }; }); })
        .then(function (res) {
          status.className = res.ok ? "" : "error";
          status.textContent = res.ok ? res.body.message : (res.body.errors || [{ message: "not subscribed" }])[0].message;
        })
        .catch(function () { status.className = "error"; status.textContent = "The server did not answer; try again."; });
    });
  });
})();

// A table or code block wider than the page scrolls inside itself; it takes keyboard focus
// then, so it can be scrolled without a mouse (and shows the focus ring while it is).
(function () {
  "use strict";
  function mark() {
    document.querySelectorAll("table, pre").forEach(function (el) {
      if (el.scrollWidth > el.clientWidth + 1) {
        if (!el.hasAttribute("tabindex")) { el.setAttribute("tabindex", "0"); el.setAttribute("data-scrolls", ""); }
      } else if (el.hasAttribute("data-scrolls")) {
        el.removeAttribute("tabindex");
        el.removeAttribute("data-scrolls");
      }
    });
  }
  mark();
  window.addEventListener("resize", mark);
  document.addEventListener("toggle", mark, true);  // a <details> opened shows what it held
  // Printing shows every answer (issue 37): a closed <details> would print only its summary.
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details:not([open])").forEach(function (d) { d.setAttribute("open", ""); d.setAttribute("data-print-opened", ""); });
  });
  window.addEventListener("afterprint", function () {
    document.querySelectorAll("details[data-print-opened]").forEach(function (d) { d.removeAttribute("open"); d.removeAttribute("data-print-opened"); });
  });
})();

// Design rounds (issue 35): the predicted figures follow the design as the candidate edits it
// (a debounced POST to /api/design/{id}, which keeps nothing; the form's own POST grades and
// keeps), and the round's timer counts down from the seconds left when the page was made.
(function () {
  "use strict";
  var form = document.getElementById("design-form");
  var live = document.getElementById("design-live");
  if (form && live) {
    var skip = { csrf: 1, started: 1, show_name: 1, board_name: 1 };
    var timer = null, sent = 0;
    var cell = function (tag, text) { var c = document.createElement(tag); c.textContent = text; return c; };
    var figure = function (v) {
      if (v === null) return "unbounded";
      return Math.abs(v) >= 1000 ? Math.round(v).toLocaleString("en-US") : String(Number(v.toPrecision(3)));
    };
    var show = function (verdict) {
      live.textContent = "";
      var head = cell("p", "Predicted now: " + (verdict.pass ? "PASS" : "FAIL") + (verdict.runs ? "" : " (" + verdict.failure + ")"));
      head.className = "design-live-head " + (verdict.pass ? "pass" : "fail");
      live.appendChild(head);
      var table = document.createElement("table");
      table.className = "design-live-table";
      verdict.objectives.forEach(function (o) {
        var tr = document.createElement("tr");
        tr.className = o.pass ? "pass" : "fail";
        tr.appendChild(cell("td", o.name));
        tr.appendChild(cell("td", figure(o.predicted) + (o.unit ? " " + o.unit : "")));
        tr.appendChild(cell("td", (o.at_most ? "≤ " : "≥ ") + figure(o.target)));
        tr.appendChild(cell("td", o.pass ? "pass" : "FAIL"));
        tr.appendChild(cell("td", o.binding));
        table.appendChild(tr);
      });
      live.appendChild(table);
      if (verdict.suggestion) {
        var s = verdict.suggestion;
        live.appendChild(cell("p", "Try: set " + s.field + " from " + s.from + " to " + s.to + " (" + s.effect + ")."));
      }
    };
    var update = function () {
      var body = {}, missing = [];
      new FormData(form).forEach(function (v, k) {
        if (skip[k]) return;
        if (v === "") missing.push(k); else body[k] = v;
      });
      if (missing.length) {
        live.textContent = "Fill in " + missing.join(", ") + " to see the predicted figures.";
        return;
      }
      var csrf = form.querySelector("input[name=csrf]");
      var headers = { "Content-Type": "application/json" };
      if (csrf) headers["X-CSRF-Token"] = csrf.value;
      var mine = ++sent;
      fetch("/api/design/" + encodeURIComponent(form.getAttribute("data-challenge")),
            { method: "POST", headers: headers, credentials: "same-origin", body: JSON.stringify(body) })
        .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, body: j }; }); })
        .then(function (res) {
          if (mine !== sent) return;  // an older answer that arrived late
          if (res.ok) { show(res.body); return; }
          live.textContent = "";
          (res.body.errors || []).forEach(function (e) {
            live.appendChild(cell("p", (e.field ? e.field + " " : "") + (e.value ? "\"" + e.value + "\" " : "") + e.message +
                                       (e.accepted ? "; accepted: " + e.accepted : "")));
          });
        })
        .catch(function () { live.textContent = "The server did not answer; the form still works without JavaScript."; });
    };
    form.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(update, 300); });
    form.addEventListener("change", function () { clearTimeout(timer); timer = setTimeout(update, 300); });
    form.setAttribute("data-ready", "1");
    update();
  }
  var clock = document.getElementById("design-timer");
  if (clock) {
    var strong = clock.querySelector("strong");
    var end = Date.now() + Number(clock.getAttribute("data-seconds-left")) * 1000;
    var tick = function () {
      var left = Math.max(0, Math.round((end - Date.now()) / 1000));
      strong.textContent = left > 0 ? Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0") : "time is up";
      if (left > 0) setTimeout(tick, 1000);
    };
    tick();
  }
})();
