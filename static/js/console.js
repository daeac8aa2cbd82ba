// A request htmx sent that failed (refused, an error of the server, or no answer at all)
// swaps nothing, so the page and what was typed in it stay as they were: this says so,
// in a message the screen reader reads at once, with what to do next. A session that
// ended is not an error here: the server sends the whole page to the sign-in page
// (HX-Redirect), which says so and comes back.
(function () {
  "use strict";

  function describe(status) {
    if (status === 403) {
      return "Your last action was refused: the page is out of date, your session ended, " +
        "or your role does not allow it. Nothing was saved. Copy what you typed if you " +
        "need it, then reload the page (you will be asked to sign in again if the session ended).";
    }
    if (status === 404) {
      return "Your last action was refused: what it acted on is no longer there. Reload the page.";
    }
    if (status === 429) {
      return "Too many requests in a short time: nothing was saved. Wait a moment and try again.";
    }
    if (status >= 500) {
      return "The server could not complete your last action (error " + status + "). " +
        "Nothing you typed on this page is lost: try again, or reload the page.";
    }
    if (status) {
      return "Your last action was refused (" + status + "). Reload the page and try again.";
    }
    return "The server could not be reached: nothing was saved. Check the connection, then try again.";
  }

  function show(text) {
    var main = document.getElementById("main");
    if (!main) return;
    var box = document.getElementById("request-error");
    if (!box) {
      box = document.createElement("div");
      box.id = "request-error";
      box.className = "form-error request-error";
      box.setAttribute("role", "alert");
      var message = document.createElement("p");
      message.id = "request-error-text";
      var close = document.createElement("button");
      close.type = "button";
      close.className = "linklike";
      close.textContent = "Dismiss";
      close.addEventListener("click", function () { box.remove(); });
      box.appendChild(message);
      box.appendChild(close);
      main.insertBefore(box, main.firstChild);
    }
    // The same words again (a poll failing each second) are not set again: the alert
    // would be read out each time.
    var said = box.querySelector("#request-error-text");
    if (said.textContent !== text) said.textContent = text;
  }

  // What to do after a refusal the page said in its own words (#refusal-message).
  var AFTER_REFUSAL = {
    400: " Nothing was saved; what you typed is still on this page: take the character " +
      "out and send it again.",
    // a role that no longer allows the action, a form whose security token expired
    403: " Copy what you typed if you need it, then reload the page.",
    // a page of another workspace than the current one (verifier/page_workspace.py)
    412: " What you typed is still on this page.",
  };

  // A page that says what was refused (a NUL character in a field: the input guard's
  // page; a role that reads only; an expired form; the workspace changed in another
  // tab) is read for its words: nothing was swapped, so what was typed is here. Its
  // way out (#refusal-actions: switch back to the page's workspace) comes with them.
  function refusal(xhr) {
    if (!xhr || !(xhr.status in AFTER_REFUSAL) || !xhr.responseText) return null;
    var type = xhr.getResponseHeader("Content-Type") || "";
    if (type.indexOf("text/html") !== 0) return null;
    var page = new DOMParser().parseFromString(xhr.responseText, "text/html");
    var said = page.getElementById("refusal-message");
    if (!said || !said.textContent.trim()) return null;
    var text = said.textContent.trim().replace(/\s+/g, " ");
    if (xhr.status === 403) text = "Your last action was refused. " + text;
    if (xhr.status !== 400 && !/nothing was (done|saved)/i.test(text)) text += " Nothing was saved.";
    return {
      text: text + AFTER_REFUSAL[xhr.status],
      actions: page.getElementById("refusal-actions"),
    };
  }

  function offer(actions) {
    var box = document.getElementById("request-error");
    var old = document.getElementById("refusal-actions");
    if (old) old.remove();
    if (box && actions) box.insertBefore(document.importNode(actions, true), box.lastChild);
  }

  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr;
    var refused = refusal(xhr);
    show(refused ? refused.text : describe(xhr ? xhr.status : 0));
    offer(refused && refused.actions);
  });
  document.addEventListener("htmx:sendError", function () {
    show(describe(0));
  });
  // A later request that succeeds takes the message away.
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.successful) {
      var box = document.getElementById("request-error");
      if (box) box.remove();
    }
  });

  // A form sent without htmx (a bulk action's confirmation, Start reviewing, a new API
  // key) is sent once: a second click or Enter while the next page loads sent it again,
  // and the second answer ("Excluded 0 claims; skipped 3 that changed after you
  // confirmed") replaced the first. It also says which workspace its page shows, as
  // htmx's header does (verifier/page_workspace.py). A form restored by Back is sent
  // again normally.
  var PAGE_WORKSPACE_FIELD = "spanproof_page_workspace";

  function sentOnce(form) {
    return form instanceof HTMLFormElement && (form.getAttribute("method") || "").toLowerCase() === "post" &&
      !form.hasAttribute("target");
  }

  window.addEventListener("submit", function (event) {
    if (sentOnce(event.target) && event.target.hasAttribute("data-sent")) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);
  window.addEventListener("submit", function (event) {
    var form = event.target;
    // htmx sends its forms itself (and drops a second request while one is on its way)
    if (event.defaultPrevented || !sentOnce(form)) return;
    form.setAttribute("data-sent", "");
    var workspace = document.body.getAttribute("data-workspace");
    if (workspace && !form.querySelector('input[name="' + PAGE_WORKSPACE_FIELD + '"]')) {
      var field = document.createElement("input");
      field.type = "hidden";
      field.name = PAGE_WORKSPACE_FIELD;
      field.value = workspace;
      form.appendChild(field);
    }
  });
  // Signing out forgets what this tab kept of unsaved drafts (review.js keeps a note or
  // an exclusion reason in sessionStorage while a session may end under it): the next
  // person to use the tab would find them put back on the same claim.
  window.addEventListener("submit", function (event) {
    if (event.defaultPrevented || !event.target.matches("#sign-out-form")) return;
    try {
      for (var i = window.sessionStorage.length - 1; i >= 0; i--) {
        var key = window.sessionStorage.key(i);
        if (key && key.indexOf("spanproof:") === 0) window.sessionStorage.removeItem(key);
      }
    } catch (e) {
      /* storage unavailable: nothing was kept */
    }
  });
  // A form whose answer takes a while (a RAG audit, a memory check, a verification: the
  // judge reads every claim before the page answers) says so once sent, in its status
  // line, and marks itself busy: the tab's spinner alone read as nothing happening for
  // the seconds (up to a minute) it takes.
  window.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !sentOnce(form) || !form.hasAttribute("data-busy")) return;
    form.setAttribute("aria-busy", "true");
    form.querySelectorAll('button[type="submit"]').forEach(function (button) {
      button.setAttribute("aria-disabled", "true");
    });
    var status = form.querySelector("[data-busy-status]");
    if (status) status.textContent = form.getAttribute("data-busy");
  });
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-sent]").forEach(function (form) {
      form.removeAttribute("data-sent");
      form.removeAttribute("aria-busy");
      form.querySelectorAll('button[aria-disabled="true"]').forEach(function (button) {
        button.removeAttribute("aria-disabled");
      });
      var status = form.querySelector("[data-busy-status]");
      if (status) status.textContent = "";
    });
  });

  // A poll's out-of-band swap into a live region (the ingest job's status line) that
  // would not change its words is skipped: a screen reader would hear the same words
  // again each second, as if something had happened.
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var target = event.detail.target;
    var fragment = event.detail.fragment;
    if (!target || !fragment) return;
    var live = target.matches('[role="status"], [role="alert"], [aria-live]') ||
      target.querySelector('[role="status"], [role="alert"], [aria-live]');
    if (live && target.textContent.trim() === fragment.textContent.trim()) {
      event.detail.shouldSwap = false;
    }
  });

  function focusNow(element) {
    if (!element.matches("a[href], button, input, select, textarea, [tabindex]")) {
      element.setAttribute("tabindex", "-1");
    }
    element.focus();
  }

  // After a full page load: a refused form puts the keyboard on its first invalid field
  // (or, when the refusal is about the form as a whole, on what it says); a page that
  // says what an action did (its messages, a panel such as a new API key's) puts it on
  // that, unless the page already put it somewhere (an autofocus field, the review
  // item's heading) or the address names a place on the page.
  window.addEventListener("load", function () {
    if (document.activeElement && document.activeElement !== document.body) return;
    var invalid = document.querySelector('main [aria-invalid="true"]');
    if (invalid) {
      focusNow(invalid);
      return;
    }
    var refused = document.querySelector("main form .form-error, main form .errorlist");
    if (refused) {
      focusNow(refused);
      return;
    }
    if (window.location.hash) return;
    var said = document.querySelector("main .messages, main section[role=status]");
    if (said) focusNow(said);
  });
})();
