"""People in a pack: by role and a pack-local reference, their usernames scrubbed from the
history's free text."""

from __future__ import annotations

from verifier.audit_pack.records import People


def test_people_are_numbered_per_role_in_order_of_appearance():
    people = People(
        {1: ("ann", "reviewer"), 2: ("bob", "admin"), 3: ("cy", "reviewer"), 4: ("x", "")}
    )
    assert people.label(3) == {"role": "reviewer", "ref": "reviewer-1"}
    assert people.label(1) == {"role": "reviewer", "ref": "reviewer-2"}
    assert people.label(3) == {"role": "reviewer", "ref": "reviewer-1"}
    assert people.label(2) == {"role": "admin", "ref": "admin-1"}
    assert people.label(4) == {"role": "person", "ref": "person-1"}  # not a member any more
    assert people.label(None) is None


def test_usernames_after_by_are_replaced_whole():
    people = People(
        {1: ("ann", "reviewer"), 2: ("anna", "reviewer"), 3: ("ed@example.org", "admin")}
    )
    assert people.scrub("review: supported by anna") == "review: supported by reviewer-1"
    assert people.scrub("re-judge requested by ann") == "re-judge requested by reviewer-2"
    assert people.scrub("Excluded in the admin by ed@example.org") == (
        "Excluded in the admin by admin-1"
    )
    # not after "by", or only a prefix of a longer word: left as written
    assert people.scrub("ann said so; by annex rules") == "ann said so; by annex rules"
    assert People({}).scrub("review: supported by ann") == "review: supported by ann"
