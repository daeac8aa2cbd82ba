"""Reads for the review console, one module per seam: ``queue`` (the claims a filter
selects, a page of them and its rows), ``cursor`` (the queue order as a keyset),
``leases`` (live leases and what "next" must not serve), ``item`` (the item pane and
its version token), ``workspace`` (assignees, guidelines, domain packs) and ``home``
(progress and next actions). Import each name from the module that holds it."""
