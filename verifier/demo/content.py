"""The demo workspace: sources written for Spanproof and claims about them.

Every claim goes through the real chain when loaded (bind in the cited source →
judge → state); ``expect`` says which state the claim is written to exercise, and
``load_demo`` reports any claim that lands elsewhere instead of forcing it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class DemoSource:
    ref: str
    title: str
    citation: str
    domain_pack: str
    text: str


@dataclass(frozen=True)
class DemoClaim:
    key: str
    source_ref: str
    text: str
    quote: str | None = None
    expect: str = "supported"
    legacy_affirmed: bool = False
    exclude_reason: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)


SOURCES: tuple[DemoSource, ...] = (
    DemoSource(
        ref="source:marrow_delta_survey",
        title="Sediment and Salt in the Marrow River Delta",
        citation="Marrow Delta Field Survey, 2024 season report, chapter 2",
        domain_pack="ecology",
        text=(
            "The Marrow River carries roughly 4.2 million tonnes of sediment to its delta "
            "each year. Most of that load arrives during the spring flood, when snowmelt from "
            "the Hallam uplands raises the river by two to three metres.\n\n"
            "Where the current slows at the river mouth, the coarser sand settles first and "
            "builds the distributary levees. The finer silt travels farther and settles in the "
            "quiet water between channels, where it feeds the tidal flats.\n\n"
            "Salt-marsh grasses, chiefly Spartina, trap silt at high tide. Survey plots with "
            "dense Spartina cover gained between 6 and 11 millimetres of elevation per year, "
            "while bare plots nearby gained less than 2 millimetres.\n\n"
            "Some researchers suggest that the marsh may keep pace with sea-level rise, but the "
            "question is still debated. The survey team noted that their plots cover only the "
            "northern lobe of the delta, and that the southern lobe has not been measured since "
            "2011.\n\n"
            "The delta's fisheries depend on the brackish lagoons behind the barrier islands. "
            "Juvenile flounder use the lagoons as nurseries from April to July."
        ),
    ),
    DemoSource(
        ref="source:tarn_point_light",
        title="The Keepers of Tarn Point Light",
        citation="Harbour Historical Society, Occasional Paper 7",
        domain_pack="history",
        text=(
            "Tarn Point Light was first lit on 3 November 1858. Its original lantern burned "
            "colza oil and was visible for about fourteen nautical miles in clear weather.\n\n"
            "The first keeper, Agnes Pryde, took over the station after her husband drowned in "
            "the winter of 1861. She kept the light for twenty-six years and trained both of her "
            "sons as assistant keepers.\n\n"
            "In 1894 the oil lantern was replaced by a paraffin vapour burner, which roughly "
            "doubled the light's range. The station was electrified in 1931.\n\n"
            "The light was automated in 1987, and the last resident keeper, Tomas Hale, left "
            "the point that spring. The keeper's cottage is now a small museum run by "
            "volunteers, open on weekends from May to September."
        ),
    ),
    DemoSource(
        ref="source:sourdough_notes",
        title="Notes on Sourdough Fermentation",
        citation="Bakers' Guild Technical Notes, No. 12",
        domain_pack="food",
        text=(
            "A sourdough starter is a stable community of wild yeasts and lactic acid bacteria. "
            "The bacteria outnumber the yeasts by roughly a hundred to one.\n\n"
            "Lactic acid bacteria produce lactic and acetic acids, which give the bread its sour "
            "flavour and lower the dough's pH to around 4. Warmer fermentation, near 30 °C, "
            "favours lactic acid; cooler fermentation favours acetic acid and a sharper taste.\n\n"
            "In our experience, a long cold proof tends to improve the bread's keeping quality, "
            "although the effect varies between flours. Whole-grain flours ferment faster than "
            "white flour because they carry more enzymes and minerals.\n\n"
            "A starter that is fed daily and kept at room temperature usually peaks four to "
            "eight hours after feeding."
        ),
    ),
    DemoSource(
        ref="source:ann_index_primer",
        title="A Primer on Approximate Nearest-Neighbour Indexes",
        citation="Spanproof engineering notes, retrieval primer",
        domain_pack="engineering",
        text=(
            "HNSW builds a layered proximity graph over the vectors. Queries descend from a sparse "
            "top layer to the dense bottom layer, which gives high recall at low latency, but "
            "the whole graph must fit in memory.\n\n"
            "IVF partitions the vectors into clusters around centroids and scans only the "
            "nprobe closest clusters per query. It uses less memory than HNSW and can be "
            "combined with product quantization to compress the vectors further.\n\n"
            "Building an HNSW index is slower than building an IVF index of the same size. "
            "Benchmarks suggest that HNSW usually reaches a given recall with fewer distance "
            "computations, though results depend on the data set.\n\n"
            "Neither index is exact: both trade some recall for speed, and both should be "
            "evaluated against an exact search on a sample of queries."
        ),
    ),
)


CLAIMS: tuple[DemoClaim, ...] = (
    # supported: exact, normalized and evidence-search bindings, entailed
    DemoClaim(
        "delta-load",
        "source:marrow_delta_survey",
        "The Marrow River carries roughly 4.2 million tonnes of sediment to its delta each year.",
        quote=(
            "The Marrow River carries roughly 4.2 million tonnes of sediment"
            " to its delta each year."
        ),
    ),
    DemoClaim(
        "delta-sand",
        "source:marrow_delta_survey",
        "Coarser sand settles first where the current slows at the river mouth.",
        quote="where the current slows at the river mouth, the coarser sand settles first",
    ),
    DemoClaim(
        "delta-spartina",
        "source:marrow_delta_survey",
        "Salt-marsh grasses trap silt at high tide.",
        quote="SALT-MARSH GRASSES, chiefly  Spartina, trap silt at high tide.",
        tags=("normalized",),
    ),
    DemoClaim(
        "light-lit",
        "source:tarn_point_light",
        "Tarn Point Light was first lit on 3 November 1858.",
    ),
    DemoClaim(
        "light-automated",
        "source:tarn_point_light",
        "Tarn Point Light was automated in 1987.",
        quote="The light was automated in 1987",
    ),
    DemoClaim(
        "bread-ratio",
        "source:sourdough_notes",
        "In a sourdough starter the bacteria outnumber the yeasts by roughly a hundred to one.",
    ),
    DemoClaim(
        "ann-ivf",
        "source:ann_index_primer",
        "IVF scans only the nprobe closest clusters per query.",
        quote="scans only the \u201cnprobe\u201d closest clusters per query",
        tags=("normalized",),
    ),
    # contradicted: the span states the opposite
    DemoClaim(
        "light-electrified",
        "source:tarn_point_light",
        "Tarn Point Light was never electrified.",
        quote="The station was electrified in 1931.",
        expect="contradicted",
    ),
    DemoClaim(
        "ann-memory",
        "source:ann_index_primer",
        "IVF does not use less memory than HNSW.",
        quote="It uses less memory than HNSW",
        expect="contradicted",
    ),
    # unverified: over-claims of hedged spans, fabricated numbers, nothing to bind
    DemoClaim(
        "delta-sealevel",
        "source:marrow_delta_survey",
        "Researchers have demonstrated that the marsh will always keep pace with sea-level rise.",
        expect="unverified",
    ),
    DemoClaim(
        "bread-coldproof",
        "source:sourdough_notes",
        "A long cold proof always improves the bread's keeping quality for every flour.",
        expect="unverified",
    ),
    DemoClaim(
        "light-range",
        "source:tarn_point_light",
        "The original lantern was visible for about forty nautical miles.",
        quote="visible for about fourteen nautical miles in clear weather",
        expect="unverified",
    ),
    DemoClaim(
        "ann-misattributed",
        "source:ann_index_primer",
        "Juvenile flounder use the brackish lagoons as nurseries from April to July.",
        quote="Juvenile flounder use the lagoons as nurseries from April to July.",
        expect="unverified",
        tags=("misattributed",),
    ),
    DemoClaim(
        "bread-rye",
        "source:sourdough_notes",
        "Rye starters were first cultivated by monastic bakers in the ninth century.",
        expect="unverified",
        tags=("fabricated",),
    ),
    # inferred: affirmed by a legacy system, no span can be bound
    DemoClaim(
        "light-keeper-legacy",
        "source:tarn_point_light",
        "Ships passing the headland were required to pay harbour dues.",
        expect="inferred",
        legacy_affirmed=True,
    ),
    DemoClaim(
        "delta-legacy",
        "source:marrow_delta_survey",
        "A ferry crossing links the two banks below the old customs house.",
        expect="inferred",
        legacy_affirmed=True,
    ),
    # excluded: an operator decision, reversible
    DemoClaim(
        "bread-excluded",
        "source:sourdough_notes",
        "Whole-grain flours ferment faster than white flour.",
        quote="Whole-grain flours ferment faster than white flour",
        expect="excluded",
        exclude_reason="Duplicate of a claim in the baking handbook; kept for the record.",
    ),
)
