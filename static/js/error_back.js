// The 400 page of a refused form (verifier/input_guard.py): "Go back to the form" steps
// back through the history, where the browser still holds what was typed; the link's own
// address (the page the form was sent from) opens the form again, empty, when there is
// no page to step back to.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var link = event.target instanceof Element ? event.target.closest("a[data-history-back]") : null;
    if (!link || window.history.length < 2) return;
    if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    window.history.back();
  });
})();
