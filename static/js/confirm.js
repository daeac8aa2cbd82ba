// A form that does what cannot be undone (revoke a key, turn off a webhook, take a
// member out) asks first: <form data-confirm="Revoke the key ci?">. Without script the
// form is sent as it is.
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
    event.preventDefault();
  }
});
