// A form that does what cannot be undone (revoke a key, turn off a webhook, take a
// member out) asks first: <form data-confirm="Revoke the key ci?">. When the person
// agrees, the form is sent with confirmed=1; without script the server asks the same
// question on a page of its own (audit/confirmation.py).
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.dataset.confirm) return;
  if (!window.confirm(form.dataset.confirm)) {
    event.preventDefault();
    return;
  }
  if (!form.querySelector('input[name="confirmed"]')) {
    const confirmed = document.createElement("input");
    confirmed.type = "hidden";
    confirmed.name = "confirmed";
    confirmed.value = "1";
    form.appendChild(confirmed);
  }
});
