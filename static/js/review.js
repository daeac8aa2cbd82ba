/* Review console: span selection in code points, keyboard shortcuts, dialogs.
 *
 * The browser counts UTF-16 code units; Spanproof stores code-point offsets. A
 * selection is converted by walking the text with Array.from (which iterates by
 * code point), and the selected text is sent along so the server can check that
 * text[start:end] is exactly what the reviewer selected.
 */
(function () {
  "use strict";

  function codePoints(text) {
    return Array.from(text).length;
  }

  function sourcePane() {
    return document.getElementById("source-text");
  }

  /* A long source is shown as a window: the pane's first code point is at this offset. */
  function paneOffset() {
    var pane = sourcePane();
    return pane ? parseInt(pane.getAttribute("data-offset") || "0", 10) : 0;
  }

  function selectionSpan() {
    var pane = sourcePane();
    var selection = window.getSelection();
    if (!pane || !selection || selection.rangeCount === 0 || selection.isCollapsed) return null;
    var range = selection.getRangeAt(0);
    if (!pane.contains(range.startContainer) || !pane.contains(range.endContainer)) return null;
    var before = document.createRange();
    before.selectNodeContents(pane);
    before.setEnd(range.startContainer, range.startOffset);
    var text = range.toString();
    if (!text) return null;
    var start = paneOffset() + codePoints(before.toString());
    return { start: start, end: start + codePoints(text), text: text };
  }

  function setField(name, value) {
    var field = document.querySelector('[data-span-field="' + name + '"]');
    if (field) field.value = value;
  }

  function showSpan(span) {
    var readout = document.getElementById("selection-readout");
    if (!readout) return;
    var preview = span.text.length > 80 ? span.text.slice(0, 80) + "…" : span.text;
    readout.textContent =
      "Selected span [" + span.start + ", " + span.end + "): “" + preview + "” — s or c binds it.";
  }

  function rememberSelection() {
    var span = selectionSpan();
    if (!span) return;
    setField("start", String(span.start));
    setField("end", String(span.end));
    setField("text", span.text);
    showSpan(span);
  }

  /* Select code points [start, end) of the source pane (for candidate spans). */
  function selectCodePoints(start, end) {
    var pane = sourcePane();
    if (!pane) return;
    start -= paneOffset();
    end -= paneOffset();
    if (start < 0) return;
    var walker = document.createTreeWalker(pane, NodeFilter.SHOW_TEXT);
    var seen = 0;
    var range = document.createRange();
    var startSet = false;
    var node;
    while ((node = walker.nextNode())) {
      var chars = Array.from(node.data);
      var units = 0;
      for (var i = 0; i <= chars.length; i++) {
        if (!startSet && seen + i === start) {
          range.setStart(node, units);
          startSet = true;
        }
        if (startSet && seen + i === end) {
          range.setEnd(node, units);
          var selection = window.getSelection();
          selection.removeAllRanges();
          selection.addRange(range);
          rememberSelection();
          return;
        }
        if (i < chars.length) units += chars[i].length;
      }
      seen += chars.length;
    }
  }

  /* Selecting a span from the keyboard (the pane is not editable, so Shift+arrows select
   * nothing there): in the source pane ↓ / ↑ select the next / previous sentence,
   * Shift+↓ / ↑ extend or shrink the selection a sentence at a time, Enter uses it. The
   * sentences are the server's (data-sentences: "start-end" code points into the version
   * text, verifier.text.sentences); the selection is made as the mouse makes one, so the
   * span sent and checked is the same, and the readout (aria-live) says what it holds. */
  var cursor = null; /* { pane, anchor, focus }: sentence indexes into data-sentences */

  function sentenceStops(pane) {
    return (pane.getAttribute("data-sentences") || "").split(" ").filter(Boolean).map(function (pair) {
      var parts = pair.split("-");
      return [parseInt(parts[0], 10), parseInt(parts[1], 10)];
    });
  }

  /* Where stepping starts: the sentence of the current selection, else of the bound span,
   * else the first. */
  function startingSentence(pane, stops) {
    var at = null;
    var span = selectionSpan();
    if (span) {
      at = span.start;
    } else {
      var mark = document.getElementById("bound-span");
      if (mark && pane.contains(mark)) {
        var before = document.createRange();
        before.selectNodeContents(pane);
        before.setEndBefore(mark);
        at = paneOffset() + codePoints(before.toString());
      }
    }
    if (at === null) return 0;
    for (var i = 0; i < stops.length; i++) if (stops[i][1] > at) return i;
    return stops.length - 1;
  }

  function revealSelection(pane) {
    var selection = window.getSelection();
    if (!selection || !selection.rangeCount) return;
    var rect = selection.getRangeAt(0).getBoundingClientRect();
    var box = pane.getBoundingClientRect();
    if (rect.top < box.top) pane.scrollTop -= box.top - rect.top + 16;
    else if (rect.bottom > box.bottom) pane.scrollTop += Math.min(rect.bottom - box.bottom, rect.top - box.top) + 16;
  }

  function stepSentence(pane, direction, extend) {
    var stops = sentenceStops(pane);
    if (!stops.length) return;
    if (!cursor || cursor.pane !== pane) {
      var first = startingSentence(pane, stops);
      cursor = { pane: pane, anchor: first, focus: first };
    } else {
      cursor.focus = Math.max(0, Math.min(stops.length - 1, cursor.focus + direction));
      if (!extend) cursor.anchor = cursor.focus;
    }
    var lo = Math.min(cursor.anchor, cursor.focus);
    var hi = Math.max(cursor.anchor, cursor.focus);
    selectCodePoints(stops[lo][0], stops[hi][1]);
    revealSelection(pane);
    var readout = document.getElementById("selection-readout");
    if (readout) {
      readout.textContent = (lo === hi ? "Sentence " + (lo + 1) : "Sentences " + (lo + 1) + "–" + (hi + 1)) +
        " of " + stops.length + ". " + readout.textContent;
    }
  }

  function useSelection() {
    var span = selectionSpan();
    if (!span) return false;
    rememberSelection();
    var readout = document.getElementById("selection-readout");
    if (readout) readout.textContent = "Span [" + span.start + ", " + span.end + ") is the one to bind: s Supported, c Contradicted.";
    return true;
  }

  document.addEventListener("keydown", function (event) {
    var pane = sourcePane();
    if (!pane || event.target !== pane || event.ctrlKey || event.metaKey || event.altKey) return;
    if (anyDialogOpen()) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (!pane.getAttribute("data-sentences")) return;
      event.preventDefault();
      stepSentence(pane, event.key === "ArrowDown" ? 1 : -1, event.shiftKey);
    } else if (event.key === "Enter" && useSelection()) {
      event.preventDefault();
    }
  });
  /* A selection made with the mouse starts the next step from where it is. */
  document.addEventListener("mousedown", function () { cursor = null; });

  function openDialog(id) {
    var dialog = document.getElementById(id);
    if (!dialog || dialog.open) return;
    dialog.showModal();
    var first = dialog.querySelector("input:not([type=hidden]), textarea, button");
    if (first) first.focus();
  }

  function anyDialogOpen() {
    return document.querySelector("dialog[open]") !== null;
  }

  /* A key whose control is missing or disabled here says why (the item's data-blocked:
   * excluded, held by another reviewer, a read-only role) instead of doing nothing. */
  function say(message) {
    var status = document.getElementById("key-status");
    if (!status || !message) return;
    status.textContent = "";
    window.setTimeout(function () { status.textContent = message; }, 50);
  }

  function blocked() {
    var item = document.getElementById("review-item");
    say(item && item.getAttribute("data-blocked"));
  }

  /* explain: true says the item's data-blocked; a string says that instead. */
  function click(id, explain) {
    var element = document.getElementById(id);
    if (element && !element.disabled) element.click();
    else if (typeof explain === "string") say(explain);
    else if (explain) blocked();
  }

  var NO_PREVIOUS = "No previous item: this is the first item you opened since Start reviewing.";
  var NO_UNDO = "Nothing to undo: no decision of yours on this claim can still be taken back " +
    "(Undo lasts a few minutes after deciding; decide again instead).";

  function openIfThere(id) {
    if (document.getElementById(id)) openDialog(id);
    else blocked();
  }

  var KEYS = {
    j: function () { click("btn-skip"); },
    k: function () { click("link-previous", NO_PREVIOUS); },
    s: function () { click("btn-supported", true); },
    c: function () { click("btn-contradicted", true); },
    d: function () { click("btn-not-stated", true); },
    r: function () { click("btn-rejudge", true); },
    x: function () { openIfThere("exclude-dialog"); },
    n: function () { openIfThere("note-dialog"); },
    u: function () { click(document.getElementById("btn-undo") ? "btn-undo" : "btn-undo-previous", NO_UNDO); },
    "?": function () { openDialog("help-dialog"); },
  };

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
    /* A key held down repeats: each repeat acted on the item loaded in place meanwhile,
     * so holding s decided one claim after another, unseen. One press, one action. */
    if (event.repeat && KEYS[event.key]) {
      event.preventDefault();
      return;
    }
    var target = event.target;
    var tag = target && target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable)) return;
    if (anyDialogOpen()) return; /* Esc is handled by the dialog itself */
    var action = KEYS[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  }

  function settle(root) {
    var mark = document.getElementById("bound-span");
    if (mark) mark.scrollIntoView({ block: "center" });
    /* A form the server shows open (its errors, or ?form= for a browser without script)
     * is shown as the modal dialog the keys open. */
    (root || document).querySelectorAll("dialog[data-open=true]").forEach(function (d) {
      if (d.open) d.close();
      d.showModal();
      var first = d.querySelector("[aria-invalid=true], input:not([type=hidden]), textarea");
      if (first) first.focus();
    });
  }

  /* The flash an action leaves (#review-flash) arrives with the swapped item, already
   * filled, and may not be announced: its words, with what it offers, go to the live
   * region that stays in the page (#review-announce), after the swap and the focus. */
  function announceFlash() {
    var region = document.getElementById("review-announce");
    var flash = document.getElementById("review-flash");
    if (!region) return;
    region.textContent = "";
    if (!flash) return;
    var text = (flash.querySelector("span") || flash).textContent.trim();
    if (document.getElementById("btn-undo-previous")) text += " Press u to undo it.";
    var restore = document.getElementById("btn-restore-previous");
    if (restore) text += " " + restore.textContent.trim() + " is offered beside this message.";
    window.setTimeout(function () { region.textContent = text; }, 100);
  }

  /* Where the keyboard starts on an item: its claim (the heading), unless a form is open. */
  function focusItem() {
    if (anyDialogOpen()) return;
    var title = document.getElementById("claim-title") || document.getElementById("queue-done");
    if (title) title.focus({ preventScroll: true });
  }

  /* On a phone the queue's filter starts folded (its summary opens it): the cards come first. */
  var filters = document.getElementById("filter-details");
  if (filters && window.matchMedia("(max-width: 700px)").matches) filters.open = false;

  document.addEventListener("keydown", onKey);
  document.addEventListener("mouseup", rememberSelection);
  document.addEventListener("keyup", function (event) {
    /* (Shift+↓ / ↑ in the source pane select by sentence and say so themselves.) */
    var stepped = event.target === sourcePane() && (event.key === "ArrowDown" || event.key === "ArrowUp");
    if (event.shiftKey && !stepped) rememberSelection();
  });
  document.addEventListener("click", function (event) {
    /* Exclude… and Note… are links to the form's page (for a browser without script);
     * with script they open the dialog in place, and Cancel closes it. */
    var opener = event.target.closest("[data-opens]");
    if (opener) {
      event.preventDefault();
      openDialog(opener.getAttribute("data-opens"));
    }
    var closer = event.target.closest("[data-closes]");
    if (closer) {
      event.preventDefault();
      document.getElementById(closer.getAttribute("data-closes")).close();
    }
    var candidate = event.target.closest("[data-select-start]");
    if (candidate) {
      selectCodePoints(
        parseInt(candidate.getAttribute("data-select-start"), 10),
        parseInt(candidate.getAttribute("data-select-end"), 10)
      );
    }
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (!target) return;
    if (target.id === "review-item") {
      /* The next item, or the end of the queue (its message). */
      settle(document.getElementById("review-item"));
      focusItem();
      announceFlash();
    } else if (target.id === "queue-results") {
      /* A chip or a page link was swapped away with the results: the keyboard goes on
       * from the results heading. (A filter field keeps its focus: htmx restores it.) */
      var trigger = event.detail.requestConfig && event.detail.requestConfig.elt;
      var lost = !document.activeElement || document.activeElement === document.body;
      var heading = document.getElementById("queue-results-title");
      if (heading && (lost || (trigger && trigger.closest && trigger.closest(".pagination, .chips")))) {
        heading.focus();
      } else if (heading && !document.getElementById("queue-filter-error")) {
        /* A filter field keeps the focus: the live region outside the results says how
         * many claims the filter now holds (the heading's words), as the focus would. (An
         * invalid filter's message is an alert of its own.) */
        var region = document.getElementById("queue-announce");
        if (region) {
          region.textContent = "";
          window.setTimeout(function () { region.textContent = heading.textContent.trim(); }, 100);
        }
      }
    }
  });
  /* The queue's "All rows on this page" (in the bulk form) ticks or clears every row's
   * box at once: assigning a day's work took a press per row. It shows mixed while only
   * some rows are ticked, and stays hidden without script (the rows are ticked one by one). */
  function rowBoxes() {
    return Array.prototype.slice.call(
      document.querySelectorAll('input[type=checkbox][name=claims][form=bulk-form]'));
  }

  function syncPageSelect() {
    var all = document.getElementById("select-page");
    var control = document.getElementById("select-page-control");
    if (!all || !control) return;
    var boxes = rowBoxes();
    var ticked = boxes.filter(function (box) { return box.checked; }).length;
    control.hidden = boxes.length === 0;
    all.checked = boxes.length > 0 && ticked === boxes.length;
    all.indeterminate = ticked > 0 && ticked < boxes.length;
  }

  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target.id === "select-page") {
      rowBoxes().forEach(function (box) { box.checked = target.checked; });
    } else if (target.name === "claims" && target.getAttribute("form") === "bulk-form") {
      syncPageSelect();
    }
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "queue-results") syncPageSelect();
  });

  /* One action on the item at a time: each answers with the item to show next, so a
   * second one sent before the first answered (d, then j at once) acted too, and its
   * answer replaced the first's, flash and Undo with it ("Skipped" for a claim just
   * decided). A second one waits: it is not sent, and the status line says why. */
  var itemRequest = null;
  var ITEM_BUSY = "Your last action on this item is still being sent: wait for its answer, then go on.";
  document.addEventListener("htmx:beforeRequest", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "review-item") return;
    /* (an answer whose afterRequest never came is no longer on its way) */
    if (itemRequest && itemRequest.readyState !== 4) {
      event.preventDefault();
      say(ITEM_BUSY);
      return;
    }
    itemRequest = event.detail.xhr || null;
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var target = event.detail.target;
    if (target && target.id === "review-item") itemRequest = null;
  });

  /* Lease expiry as a countdown (m:ss). At 0 the lease is gone: the claim can still be
   * decided here while no other reviewer takes it (a decision needs no lease; another
   * reviewer's live lease refuses it), and the status line says so once. */
  var LEASE_EXPIRED = "Your lease on this claim has expired: another reviewer may be served it now. " +
    "You can still decide it while nobody else is reviewing it; press j for the next item.";
  function tickCountdowns() {
    document.querySelectorAll("time[data-countdown]").forEach(function (el) {
      var left = Math.max(0, Math.round((Date.parse(el.getAttribute("datetime")) - Date.now()) / 1000));
      el.textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
      if (left === 0 && !el.hasAttribute("data-expired")) {
        el.setAttribute("data-expired", "");
        say(LEASE_EXPIRED);
      }
    });
  }
  window.setInterval(tickCountdowns, 1000);

  /* A page restored from the back/forward cache shows a lease and an item version
   * that may be stale: fetch the current one instead. */
  window.addEventListener("pageshow", function (event) {
    if (event.persisted && document.getElementById("review-item")) window.location.reload();
  });
  /* The note typed with a decision outlives a reload of the page mid-form, a session
   * that ended mid-review (the server sends the page to the sign-in page, which comes
   * back here) and a refused request the reviewer reloads after: it is kept for this tab
   * (sessionStorage, by claim) as it is typed and while the decision is on its way,
   * dropped once the decision is taken, and put back into the empty note field the next
   * time this claim's page loads (kept until then, so a second reload keeps it too).
   * What was typed into the Note and Exclude forms is kept the same way from when it is
   * sent (a session that ended, a refusal), and its form opens again with it. */
  var DRAFT_FIELDS = {
    "decision-note": "The note you typed before, not yet saved, is back in the note field.",
    "note-text": "The note you were adding, not yet saved, is back in its form.",
    "exclude-reason": "The reason you gave to exclude this claim, not yet saved, is back in its form.",
  };
  var pendingDraft = null;

  function draftKey(fieldId, item) {
    return "spanproof:" + fieldId + ":" + item.getAttribute("data-claim");
  }

  function draftStore(key, value) {
    try {
      if (value) window.sessionStorage.setItem(key, value);
      else window.sessionStorage.removeItem(key);
    } catch (e) { /* storage off: nothing is kept */ }
  }

  function draftTake(key) {
    try {
      var value = window.sessionStorage.getItem(key);
      window.sessionStorage.removeItem(key);
      return value;
    } catch (e) {
      return null;
    }
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    var form = elt && elt.closest ? elt.closest("form") : null;
    var item = document.getElementById("review-item");
    if (!form || !item) return;
    var field = Object.keys(DRAFT_FIELDS).map(function (id) {
      return form.querySelector("#" + id);
    }).filter(Boolean)[0];
    if (!field) return;
    pendingDraft = draftKey(field.id, item);
    draftStore(pendingDraft, field.value);
  });
  document.addEventListener("input", function (event) {
    var note = event.target;
    var item = document.getElementById("review-item");
    if (!note || note.id !== "decision-note" || !item) return;
    draftStore(draftKey("decision-note", item), note.value);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    // Dropped only once the decision was taken: a refusal (409, 422) is swapped in as
    // a page, which htmx calls successful, and a session that ended answers 200 with
    // HX-Redirect, which htmx follows without saying either way.
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    if (pendingDraft && event.detail.successful && status >= 200 && status < 300) {
      draftStore(pendingDraft, "");
      pendingDraft = null;
    }
  });

  function restoreDraft() {
    var item = document.getElementById("review-item");
    if (!item) return;
    Object.keys(DRAFT_FIELDS).forEach(function (id) {
      var field = document.getElementById(id);
      if (!field) return;
      var key = draftKey(id, item);
      var kept = draftTake(key);
      if (!kept || field.value) return;
      field.value = kept;
      draftStore(key, kept); // still unsaved: a further reload keeps it too
      var dialog = field.closest("dialog");
      if (dialog && !anyDialogOpen()) openDialog(dialog.id);
      say(DRAFT_FIELDS[id]);
    });
  }

  function start() {
    syncPageSelect();
    restoreDraft();
    settle(document);
    if (!window.location.hash) focusItem();
    announceFlash();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }

  window.spanproofReview = { selectionSpan: selectionSpan, selectCodePoints: selectCodePoints };
})();
