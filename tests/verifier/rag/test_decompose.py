from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from verifier.rag import decompose
from verifier.rag.decompose import find_markers


def spans(answer):
    return [(a.span, a.cited) for s in decompose(answer) for a in s.atoms]


def test_markers_are_parsed_out_of_spans():
    answer = "IVF scans nprobe lists [c2]. HNSW is RAM-heavy [c1, c3]."
    assert [(s.whole.span, s.whole.cited) for s in decompose(answer)] == [
        ("IVF scans nprobe lists", ("c2",)),
        ("HNSW is RAM-heavy", ("c1", "c3")),
    ]


def test_marker_after_the_period_belongs_to_the_sentence_before():
    answer = "The tower was finished in 1889. [d1] The company built it. [d2]"
    assert [s.whole.cited for s in decompose(answer)] == [("d1",), ("d2",)]


def test_adjacent_markers():
    assert find_markers("x [a][b] y")[0].ids == ("a",)
    assert decompose("The river floods in spring [a][b].")[0].whole.cited == ("a", "b")


def test_predicate_conjunction_splits_with_the_subject_prefixed():
    sentence = decompose("HNSW always outperforms IVF and is the only index FAISS supports [c1].")[
        0
    ]
    assert [(a.span, a.text) for a in sentence.atoms] == [
        ("HNSW always outperforms IVF", "HNSW always outperforms IVF"),
        ("is the only index FAISS supports", "HNSW is the only index FAISS supports"),
    ]


def test_noun_and_name_conjunctions_do_not_split():
    assert not decompose("Cats and dogs are common pets.")[0].splits
    assert not decompose("The European Coal and Steel Community was founded in 1951.")[0].splits


def test_conjunction_inside_a_subordinate_clause_does_not_split():
    answer = "Prefer IVF when memory is tight or the corpus exceeds RAM and a disk index is needed."
    assert not decompose(answer)[0].splits


def test_uncited_atom_takes_the_next_marker():
    sentence = decompose("The bridge opened in 1937 and spans 1,280 meters [g1].")[0]
    assert [a.cited for a in sentence.atoms] == [("g1",), ("g1",)]


def test_citation_free_answer():
    assert spans("The Amazon flows into the Atlantic. It is long.") == [
        ("The Amazon flows into the Atlantic", ()),
        ("It is long", ()),
    ]


@given(st.text(alphabet=st.sampled_from(list("ab .,;[]c1\n and but ")), max_size=80))
def test_spans_round_trip_offsets(answer):
    for sentence in decompose(answer):
        for claim in (sentence.whole, *sentence.atoms):
            assert answer[claim.start : claim.end] == claim.span
            assert claim.span.strip() == claim.span
