/* Audit console: copy buttons, span permalinks (#start-end), span ↔ claim navigation. */
(function () {
  "use strict";

  function onReady(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }

  function setupCopy() {
    document.querySelectorAll("button.copy[data-copy-target]").forEach(function (button) {
      button.addEventListener("click", function () {
        var target = document.getElementById(button.dataset.copyTarget);
        var status = button.parentElement.querySelector(".copy-status");
        if (!target) return;
        var text = target.textContent;
        var done = function (ok) { if (status) status.textContent = ok ? "Copied." : "Copy failed: select the text and copy it."; };
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(false); });
        } else {
          var range = document.createRange();
          range.selectNodeContents(target);
          var sel = window.getSelection();
          sel.removeAllRanges();
          sel.addRange(range);
          done(document.execCommand && document.execCommand("copy"));
        }
      });
    });
  }

  function setupSource() {
    var textBox = document.getElementById("source-text");
    if (!textBox) return;
    var list = document.getElementById("span-claims");
    var status = document.getElementById("span-filter-status");
    var showAll = document.getElementById("show-all-claims");
    var marks = Array.prototype.slice.call(textBox.querySelectorAll("mark.span"));

    /* The segments the server focused (?span=S-E, ?claim=): every segment of the span,
     * overlapping spans cut it into several. A permalink's #seg-<S> names the first of
     * them; the whole span stays focused, not that one segment. */
    var served = marks.filter(function (m) { return m.classList.contains("focus"); });

    function showMarks(hit, start, end) {
      marks.forEach(function (m) { m.classList.remove("focus"); m.removeAttribute("aria-current"); });
      hit.forEach(function (m) { m.classList.add("focus"); });
      hit[0].setAttribute("aria-current", "location");
      hit[0].scrollIntoView({ block: "center" });
      hit[0].focus({ preventScroll: true });
      if (status) status.textContent = "Showing the span [" + start + ", " + end + ").";
    }

    /* Each bound span's extent, [first character, last + 1), from the highlights that
     * carry its binding (overlaps cut a span into several highlights). */
    var extents = {};
    marks.forEach(function (m) {
      (m.dataset.bindings || "").split(" ").forEach(function (key) {
        if (!key) return;
        var s = Number(m.dataset.start), e = Number(m.dataset.end), x = extents[key];
        if (!x) extents[key] = [s, e];
        else { x[0] = Math.min(x[0], s); x[1] = Math.max(x[1], e); }
      });
    });

    function isBoundSpan(start, end) {
      return Object.keys(extents).some(function (key) {
        return extents[key][0] === start && extents[key][1] === end;
      });
    }

    /* The span a highlight belongs to: the one that starts there, else the first. */
    function spanAt(mark) {
      var keys = (mark.dataset.bindings || "").split(" ").filter(function (k) { return extents[k]; });
      var at = Number(mark.dataset.start);
      var key = keys.filter(function (k) { return extents[k][0] === at; })[0] || keys[0];
      return key ? extents[key] : [at, Number(mark.dataset.end)];
    }

    /* Only a span bound in this version is shown and announced: a range that merely
     * holds highlights (#175-233 around two spans) is no span. */
    function focusSpan(start, end) {
      var hit = !isBoundSpan(start, end) ? [] : marks.filter(function (m) {
        return Number(m.dataset.start) >= start && Number(m.dataset.end) <= end;
      });
      if (!hit.length) {
        marks.forEach(function (m) { m.classList.remove("focus"); m.removeAttribute("aria-current"); });
        if (status) status.textContent = "No bound span at [" + start + ", " + end + ") in this version.";
        return false;
      }
      showMarks(hit, start, end);
      return true;
    }

    var nav = document.getElementById("window-nav");
    var windowStart = nav ? Number(nav.dataset.windowStart) : 0;
    var windowEnd = nav ? Number(nav.dataset.windowEnd) : Infinity;

    /* Long sources render a window of their text: a span outside it is fetched by
     * asking the server to focus it (?span=start-end), keeping the #seg- anchor. */
    function inWindow(start, end) { return start >= windowStart && end <= windowEnd; }

    function openSpan(start, end) {
      var params = new URLSearchParams(window.location.search);
      params.set("span", end === null ? String(start) : start + "-" + end);
      params.delete("at");
      params.delete("cpage");
      window.location.replace("?" + params.toString() + "#seg-" + start);
    }

    function fromHash() {
      var match = /^#(\d+)-(\d+)$/.exec(window.location.hash);
      var seg = /^#seg-(\d+)$/.exec(window.location.hash);
      if (match) {
        var start = Number(match[1]), end = Number(match[2]);
        if (!inWindow(start, end)) { openSpan(start, end); return; }
        focusSpan(start, end);
      } else if (seg) {
        var at = Number(seg[1]);
        var mark = document.getElementById("seg-" + at);
        if (mark && mark === served[0]) {
          showMarks(served, at, Number(served[served.length - 1].dataset.end));
          return;
        }
        if (mark) { var span = spanAt(mark); focusSpan(span[0], span[1]); return; }
        if (!inWindow(at, at + 1)) openSpan(at, null);
      } else {
        var focused = textBox.querySelector("mark.span.focus");
        if (focused) {
          focused.scrollIntoView({ block: "center" });
          focused.focus({ preventScroll: true });
        }
      }
    }

    function filterClaims(mark) {
      if (!list) return;
      var ids = (mark.dataset.bindings || "").split(" ");
      var listed = Array.prototype.some.call(list.querySelectorAll("li[data-binding]"), function (li) {
        return ids.indexOf(li.dataset.binding) !== -1;
      });
      if (!listed) {
        /* Its claims are on another page of the list, or outside the state filter: hiding
         * every row would show an empty list. Open the span instead: that page pins them. */
        window.location.assign("?span=" + mark.dataset.start + "-" + mark.dataset.end +
          "#seg-" + mark.dataset.start);
        return;
      }
      var first = null;
      list.querySelectorAll("li[data-binding]").forEach(function (li) {
        var on = ids.indexOf(li.dataset.binding) !== -1;
        li.hidden = !on;
        li.classList.toggle("selected", on);
        if (on && !first) first = li;
      });
      if (showAll) showAll.hidden = false;
      if (status) {
        status.textContent = ids.length + " binding" + (ids.length === 1 ? "" : "s") +
          " at [" + mark.dataset.start + ", " + mark.dataset.end + ").";
      }
      if (first) { first.scrollIntoView({ block: "nearest" }); first.focus({ preventScroll: true }); }
    }

    marks.forEach(function (mark) {
      mark.addEventListener("click", function () { filterClaims(mark); });
      mark.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); filterClaims(mark); }
      });
    });

    if (showAll) {
      showAll.addEventListener("click", function () {
        list.querySelectorAll("li[data-binding]").forEach(function (li) {
          li.hidden = false;
          li.classList.remove("selected");
        });
        showAll.hidden = true;
        if (status) status.textContent = "Showing all claims.";
      });
    }

    document.querySelectorAll("a.show-span").forEach(function (link) {
      link.addEventListener("click", function (event) {
        var li = link.closest("li[data-start]");
        if (!li || !inWindow(Number(li.dataset.start), Number(li.dataset.end))) return;
        event.preventDefault();
        var hash = "#" + li.dataset.start + "-" + li.dataset.end;
        if (window.location.hash !== hash) history.pushState(null, "", hash);
        focusSpan(Number(li.dataset.start), Number(li.dataset.end));
      });
    });

    window.addEventListener("hashchange", fromHash);
    fromHash();
  }

  /* Rule-set form: the running total of the dimension weights, as they are typed. */
  function setupWeightTotal() {
    var out = document.querySelector("[data-weight-total]");
    var form = document.getElementById("rule-set-form");
    if (!out || !form) return;
    function update() {
      var total = 0;
      form.querySelectorAll('input[name^="weight_"]').forEach(function (input) {
        var n = parseFloat(input.value);
        if (!isNaN(n)) total += n;
      });
      var ok = Math.abs(total - 1) < 1e-6;
      out.textContent = "Weights total: " + total.toFixed(2) + (ok ? " ✓" : " — must be 1.00");
      out.classList.toggle("fail", !ok);
    }
    form.addEventListener("input", function (event) {
      if (event.target.name && event.target.name.indexOf("weight_") === 0) update();
    });
  }

  onReady(function () {
    setupCopy();
    setupSource();
    setupWeightTotal();
  });
})();
