# ruff: noqa: UP031
"""Build extra_pairs.jsonl.gz from fetched git mirrors (stdlib only).

Every input is read with `git show <commit>:<path>` from the mirror directories
under /work/.mirror/ (owner+name/repo), at the pinned commits below, so the output
is reproducible. Output rows have exactly the fields of
/work/shared/train/nli_pairs.jsonl:
    {"id", "dataset", "premise", "hypothesis", "label", "license"}

Usage:
    python3 build_extra_pairs.py [--mirror /work/.mirror] [--out extra_pairs.jsonl.gz]
                       [--existing /work/shared/train/nli_pairs.jsonl]
                       [--max-total 60000] [--seed 13] [--include-cuda]

--include-cuda adds TaxiNLI (MultiNLI pairs redistributed under Microsoft's C-UDA 1.0);
off by default because C-UDA is not on the accepted-licence list (see REPORT.md).
"""

import argparse
import collections
import csv
import gzip
import hashlib
import io
import json
import os
import random
import re
import subprocess
import zipfile

csv.field_size_limit(10**8)

MAX_PREMISE_CHARS = 2000
LABELS = ("entailment", "neutral", "contradiction")

# repo -> pinned commit (40 hex). Mirror dir is <mirror>/<owner>+<name>/repo
COMMITS = {
    "posuer/Check-COVID": "3ae70f8cac4df13a3ce56878e20d8e76790e422d",
    "TalSchuster/FeverSymmetric": "fa25d17e73ea0694edc78133ec654b9f32f6db73",
    "copenlu/sufficient_facts": "1fbc36364f5639d294299784958599fda0978472",
    "google-research/fool-me-twice": "d9db753e5acf91c0d9bf543db327ab655661eb94",
    "google/BEGIN-dataset": "6e65f0d5a1ed1b9574643a7640ff1678d4e979b5",
    "McGill-NLP/FaithDial": "25671c6e3aa7d667943b7744a2b91507e7187f83",
    "swarnaHub/ConjNLI": "10e0515c0d1777651b5084d9cca4664ead8162a4",
    "BIU-NLP/Breaking_NLI": "8a7658c1ce6b732f4e8af3b06560f1a13b8b18b0",
    "microsoft/TaxiNLI": "60d89b03293c47b99288e24853a4cd3426bea437",
    "ajit-srikanth/Contract-NLI": "c53c2bcfc7963a5762628e4371440c1956514279",
    "verypluming/MED": "860ba36ce95ecba9f1ebe348d3d8cf1b3cba435a",
    "allenai/aristo-leaderboard": "60d5be31b5a7d36f29d13223ece29a8d2bfa8b5f",
}

MIRROR = "/work/.mirror"


def git_show(repo, path):
    gitdir = os.path.join(MIRROR, repo.replace("/", "+"), "repo")
    if not os.path.isdir(gitdir):
        raise SystemExit(f"missing mirror {gitdir} (fetch github:{repo} first)")
    res = subprocess.run(
        ["git", "-C", gitdir, "show", f"{COMMITS[repo]}:{path}"], capture_output=True
    )
    if res.returncode != 0:
        raise SystemExit(f"git show failed for {repo}:{path}: {res.stderr.decode()[:300]}")
    data = res.stdout
    if data.startswith(b"version https://git-lfs"):
        raise SystemExit(f"{repo}:{path} is an LFS pointer")
    return data


def text(repo, path):
    return git_show(repo, path).decode("utf-8-sig")


def jsonl(repo, path):
    return [json.loads(line) for line in text(repo, path).splitlines() if line.strip()]


def json_or_jsonl(repo, path):
    t = text(repo, path)
    try:
        return json.loads(t)
    except ValueError:
        return [json.loads(line) for line in t.splitlines() if line.strip()]


PTB = {
    "-LRB-": "(",
    "-RRB-": ")",
    "-LSB-": "[",
    "-RSB-": "]",
    "-LCB-": "{",
    "-RCB-": "}",
    "-COLON-": ":",
    "``": '"',
    "''": '"',
}
PTB_RE = re.compile("|".join(re.escape(k) for k in PTB))


def clean(s):
    s = PTB_RE.sub(lambda m: PTB[m.group(0)], s or "")
    return re.sub(r"\s+", " ", s).strip()


def norm_key(p, h):
    def f(s):
        return re.sub(r"\W+", " ", s.lower()).strip()

    return f(p) + "\t" + f(h)


def make(dataset, premise, hypothesis, label, lic):
    premise, hypothesis = clean(premise), clean(hypothesis)
    assert label in LABELS, label
    hid = hashlib.sha1((f"{dataset}\t{premise}\t{hypothesis}").encode()).hexdigest()[:12]
    return {
        "id": f"{dataset}/{hid}",
        "dataset": dataset,
        "premise": premise,
        "hypothesis": hypothesis,
        "label": label,
        "license": lic,
    }


FEVER_LABEL = {
    "SUPPORTS": "entailment",
    "SUPPORTED": "entailment",
    "SUPPORT": "entailment",
    "REFUTES": "contradiction",
    "REFUTED": "contradiction",
    "REFUTE": "contradiction",
    "NOT ENOUGH INFO": "neutral",
    "NOTENOUGHINFO": "neutral",
    "NOT ENOUGH": "neutral",
}


# ---------------------------------------------------------------- sources
def src_check_covid(rng):
    """Check-COVID dev + test (train is already in nli_pairs.jsonl). MIT."""
    R, lic = "posuer/Check-COVID", "MIT"
    corpus = {d["cord_id"]: d["abstract"] for d in json_or_jsonl(R, "Check-COVID/corpus.json")}
    out = []
    for p in (
        "Check-COVID/dev/covidCheck_dev_composed+extracted.json",
        "Check-COVID/test/covidCheck_test_composed.json",
        "Check-COVID/test/covidCheck_test_extracted.json",
    ):
        for c in json_or_jsonl(R, p):
            sents = corpus[c["cord_id"]]
            idx = sorted({e["sent_index"] for e in c["evidence_set"]})
            lab = FEVER_LABEL[c["label"]]
            # NB: labels are relative to the annotated evidence sentences (the same claim
            # can be REFUTE with one evidence set and NOTENOUGHINFO with another), so no
            # whole-abstract variant.
            out.append(
                make("check-covid-devtest", " ".join(sents[i] for i in idx), c["claim"], lab, lic)
            )
    return out


def src_fever_symmetric_v01(rng):
    """FEVER-Symmetric v0.1 (v0.2 dev/test are already in nli_pairs.jsonl). CC BY-SA 3.0."""
    R, lic = "TalSchuster/FeverSymmetric", "CC BY-SA 3.0"
    out = []
    for p in (
        "symmetric_v0.1/fever_symmetric_full.jsonl",
        "symmetric_v0.1/fever_symmetric_generated.jsonl",
    ):
        for r in jsonl(R, p):
            out.append(
                make(
                    "fever-symmetric-v0.1",
                    r["evidence_sentence"],
                    r["claim"],
                    FEVER_LABEL[r["label"]],
                    lic,
                )
            )
    return out


SPAN_RE = re.compile(r"</?span[^>]*>")
TITLE_RE = re.compile(r"\[\[(.+?)\]\]")


def src_sufficient_facts(rng):
    """SufficientFacts (FEVER / HoVer / VitaminC claims with evidence, and the same evidence with a
    constituent or sentence removed, human-labelled ENOUGH / NOT ENOUGH).
    MIT (HF card copenlu/sufficient_facts); evidence text is Wikipedia, CC BY-SA."""
    R, lic = "copenlu/sufficient_facts", "MIT; Wikipedia text CC BY-SA 3.0/4.0"
    out = []
    for name in ("fever", "hover", "vitaminc"):
        for r in jsonl(R, f"data/sufficient_facts/{name}_sufficient_facts.jsonl"):
            before = FEVER_LABEL[r["label_before"]]
            reduced = " ".join(f"{clean(t)}: {clean(s)}" for t, s in r["evidence"])
            after = "neutral" if r["label_after"].startswith("NOT ENOUGH") else before
            out.append(make("sufficient-facts", reduced, r["claim"], after, lic))
            orig = SPAN_RE.sub("", r["text_orig"])
            orig = TITLE_RE.sub(lambda m: m.group(1) + ":", orig)
            out.append(make("sufficient-facts", orig, r["claim"], before, lic))
    return out


def src_fm2(rng):
    """Fool Me Twice dev + test (train.jsonl is >4 MiB, absent from the snapshot).
    Repo Apache-2.0; evidence is Wikipedia text (CC BY-SA 3.0).
    neutral = claim vs one retrieved sentence of the same page that is not gold evidence
    (silver)."""
    R, lic = "google-research/fool-me-twice", "Apache-2.0; Wikipedia text CC BY-SA 3.0"
    out = []
    for p in ("dataset/dev.jsonl", "dataset/test.jsonl"):
        for r in jsonl(R, p):
            page = r["wikipedia_page"]
            gold = [clean(e["text"]) for e in r["gold_evidence"]]
            lab = FEVER_LABEL[r["label"]]
            out.append(make("fm2", "{}: {}".format(page, " ".join(gold)), r["text"], lab, lic))
            gl = {g.lower() for g in gold}
            other = []
            for e in r["retrieved_evidence"]:
                t = clean(e["text"])
                if (
                    t.lower() not in gl
                    and len(t) > 30
                    and not any(t.lower() in g or g in t.lower() for g in gl)
                ):
                    other.append(t)
            other = sorted(set(other))
            if other:
                out.append(make("fm2", f"{page}: {rng.choice(other)}", r["text"], "neutral", lic))
                # distractor variant: gold evidence plus one other sentence of the page, label kept
                mix = [*gold, rng.choice(other)]
                rng.shuffle(mix)
                out.append(make("fm2", "{}: {}".format(page, " ".join(mix)), r["text"], lab, lic))
    return out


def src_begin(rng):
    """BEGIN: knowledge snippet vs dialogue-model response, human attribution label.
    WoW part CC BY 4.0; CMU-DoG part under the CMU (festvox) permissive licence.
    TopicalChat part (CDLA-Sharing) is not used."""
    R = "google/BEGIN-dataset"
    files = (
        ("wow/begin_dev_wow.tsv", "CC BY 4.0; Wikipedia text CC BY-SA"),
        ("wow/begin_test_wow.tsv", "CC BY 4.0; Wikipedia text CC BY-SA"),
        (
            "cmu-dog/begin_dev_cmu.tsv",
            "CMU-DoG festvox licence (BSD-style); Wikipedia text CC BY-SA",
        ),
    )
    m = {"Fully attributable": "entailment", "Not fully attributable": "neutral"}
    out = []
    for p, lic in files:
        for r in csv.DictReader(io.StringIO(text(R, p)), delimiter="\t", quoting=csv.QUOTE_NONE):
            lab = m.get((r.get("begin_label") or "").strip())
            if lab and r["knowledge"].strip() and r["response"].strip():
                out.append(make("begin", r["knowledge"], r["response"], lab, lic))
    return out


def src_faithdial_audit(rng):
    """FaithDial data-audit: BEGIN-style human labels of WoW / CMU-DoG responses. MIT
    (repo); WoW CC BY 4.0, CMU-DoG festvox licence. TopicalChat files not used."""
    R = "McGill-NLP/FaithDial"
    files = [
        ("data-audit/gold/wow.csv", "evidence", "response", "BEGIN", "wow"),
        ("data-audit/gold/cmu.csv", "evidence", "response", "BEGIN", "cmu"),
    ]
    for model, col in (("CTRL", "ctrl"), ("DoHA", "doha"), ("GPT2", "gpt2")):
        for ds in ("wow", "cmu"):
            files.append(
                (
                    f"data-audit/{model}/{col}_processed_{ds}.csv",
                    "knowledge",
                    col,
                    "begin_label",
                    ds,
                )
            )
    out = []
    for p, kcol, rcol, lcol, ds in files:
        lic = (
            "MIT; WoW CC BY 4.0; Wikipedia text CC BY-SA"
            if ds == "wow"
            else "MIT; CMU-DoG festvox licence (BSD-style); Wikipedia text CC BY-SA"
        )
        for r in csv.DictReader(io.StringIO(text(R, p))):
            folded = re.sub(r"[^a-z,]", "", (r.get(lcol) or "").lower().replace(".", ","))
            parts = set(folded.split(","))
            if any(x.startswith("hallucinat") for x in parts):
                lab = "neutral"  # (partial) hallucination = not entailed by the knowledge
            elif (
                parts
                and all(x.startswith("entailment") or x == "uncooperative" for x in parts)
                and any(x.startswith("entailment") for x in parts)
            ):
                lab = "entailment"
            else:
                continue  # generic / bare uncooperative / unlabelled
            if r[kcol].strip() and r[rcol].strip():
                out.append(make("faithdial-audit", r[kcol], r[rcol], lab, lic))
    return out


def src_conjnli(rng):
    """ConjNLI: expert-annotated dev (Wikipedia conjunctive sentences) + a sample of the
    automatically built adversarial training set. MIT; Wikipedia text CC BY-SA."""
    R, lic = "swarnaHub/ConjNLI", "MIT; Wikipedia text CC BY-SA"
    out = []
    for p, ds in (
        ("data/NLI/conj_dev.tsv", "conjnli-dev"),
        ("data/NLI/adversarial_train_15k.tsv", "conjnli-adv"),
    ):
        for r in csv.DictReader(io.StringIO(text(R, p)), delimiter="\t", quoting=csv.QUOTE_NONE):
            lab = (r.get("Label") or "").strip()
            if lab in LABELS:
                out.append(make(ds, r["Premise"], r["Hypothesis"], lab, lic))
    return out


def src_breaking_nli(rng):
    """Breaking NLI: SNLI premises with one word swapped (lexical inference). CC BY-SA 4.0."""
    R, lic = "BIU-NLP/Breaking_NLI", "CC BY-SA 4.0"
    z = zipfile.ZipFile(io.BytesIO(git_show(R, "breaking_nli_dataset.zip")))
    out = []
    for line in z.read("data/dataset.jsonl").decode("utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            if r["gold_label"] in LABELS:
                out.append(
                    make("breaking-nli", r["sentence1"], r["sentence2"], r["gold_label"], lic)
                )
    return out


def src_taxinli(rng):
    """TaxiNLI = 10k MultiNLI pairs (7.7k from MNLI dev). C-UDA 1.0 -- opt-in only."""
    R, lic = "microsoft/TaxiNLI", "C-UDA 1.0 (TaxiNLI); MultiNLI text OANC / CC BY-SA 3.0"
    out = []
    for r in csv.DictReader(
        io.StringIO(text(R, "taxinli10k.tsv")), delimiter="\t", quoting=csv.QUOTE_NONE
    ):
        if r["label"] in LABELS:
            out.append(make("taxinli-mnli", r["prem"], r["hyp"], r["label"], lic))
    return out


CONTRACT_NLI_LABEL = {"0": "entailment", "1": "contradiction", "2": "neutral"}
CONTRACT_NLI_MIN_PREMISE = 80  # a NotMentioned row's clauses can be bare headings


def src_contract_nli(rng):
    """ContractNLI: 17 NDA statements against the clauses of 607 contracts, expert labels
    with evidence spans. CC BY 4.0 (dataset/contract-nli/LICENSE). The span-level CSV of
    this copy joins a row's evidence spans (Entailment / Contradiction); for NotMentioned
    it joins clauses of the same contract, all of which are neutral to the statement
    because the contract does not mention it anywhere."""
    R, lic = "ajit-srikanth/Contract-NLI", "CC BY 4.0"
    out = []
    for part in ("train", "validation", "test"):
        for r in csv.DictReader(io.StringIO(text(R, f"dataset/csv/all_labels/{part}.csv"))):
            premise = r["concatenated_spans"]
            if len(clean(premise)) >= CONTRACT_NLI_MIN_PREMISE:
                lab = CONTRACT_NLI_LABEL[r["label"]]
                out.append(make("contract-nli", premise, r["hypothesis"], lab, lic))
    return out


def src_med(rng):
    """MED, the Monotonicity Entailment Dataset (quantifiers, negation, conditionals:
    "some" / "all" / "no" read upward and downward). CC BY-SA 4.0. Two labels: its
    "neutral" is every non-entailment, contradictions included."""
    R, lic = "verypluming/MED", "CC BY-SA 4.0"
    rows = csv.DictReader(io.StringIO(text(R, "MED.tsv")), delimiter="\t", quoting=csv.QUOTE_NONE)
    return [
        make("med", r["sentence1"], r["sentence2"], r["gold_label"], lic)
        for r in rows
        if r["gold_label"] in LABELS
    ]


def src_scitail(rng):
    """SciTail dev + test (science questions' answers as hypotheses against web sentences;
    train is not in the snapshot). Apache-2.0 (aristo-leaderboard LICENSE, AI2's terms)."""
    R, lic = "allenai/aristo-leaderboard", "Apache-2.0"
    m = {"E": "entailment", "N": "neutral"}
    out = []
    for part in ("dev", "test"):
        for r in jsonl(R, f"scitail/data/{part}/answers.jsonl"):
            if r.get("gold_label") in m:
                out.append(make("scitail", r["sentence1"], r["sentence2"], m[r["gold_label"]], lic))
    return out


# dataset -> per-label cap after dedupe (None = keep all). Sampling is seeded.
SOURCES = [
    (src_check_covid, None),
    # (src_fever_symmetric_v01, None),  # all 1,673 rows already in nli_pairs.jsonl
    (src_sufficient_facts, None),
    (src_fm2, None),
    (src_begin, {"neutral": 2000}),
    (src_faithdial_audit, {"neutral": 300}),
    (src_conjnli, {"conjnli-adv": {"entailment": 1000, "neutral": 1000, "contradiction": 1000}}),
    (src_breaking_nli, {"contradiction": 3000}),
    # 17 statements only: capped so that each statement is seen about 200 times
    (src_contract_nli, {"entailment": 1500, "contradiction": 800, "neutral": 1000}),
    (src_med, None),
    (src_scitail, None),
]


def cap_for(caps, ds, lab):
    if not caps:
        return None
    if isinstance(caps.get(ds), dict):
        return caps[ds].get(lab)
    v = caps.get(lab)
    return v if isinstance(v, int) else None


def main():
    global MIRROR
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", default=MIRROR)
    ap.add_argument(
        "--out",
        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "extra_pairs.jsonl.gz"),
    )
    ap.add_argument(
        "--existing",
        default="/work/shared/train/nli_pairs.jsonl",
        help="pairs already used; identical (premise, hypothesis) are dropped",
    )
    ap.add_argument("--max-total", type=int, default=60000)
    ap.add_argument("--max-gz-bytes", type=int, default=8 * 1024 * 1024)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--include-cuda", action="store_true", help="also add TaxiNLI (C-UDA 1.0)")
    a = ap.parse_args()
    MIRROR = a.mirror

    seen = set()
    if a.existing and os.path.exists(a.existing):
        with open(a.existing, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                seen.add(norm_key(r["premise"], r["hypothesis"]))
    n_existing = len(seen)

    sources = list(SOURCES)
    if a.include_cuda:
        sources.append((src_taxinli, None))

    rows, stats = [], collections.OrderedDict()
    for fn, caps in sources:
        rng = random.Random("%d/%s" % (a.seed, fn.__name__))
        raw = fn(rng)
        # the same (premise, hypothesis) with two different labels inside a source: drop all copies
        labs = collections.defaultdict(set)
        for r in raw:
            labs[norm_key(r["premise"], r["hypothesis"])].add(r["label"])
        conflict = {k for k, v in labs.items() if len(v) > 1}
        kept = collections.defaultdict(list)
        drop = collections.Counter()
        for r in raw:
            if len(r["premise"]) > MAX_PREMISE_CHARS:
                drop["premise>2000"] += 1
                continue
            if not r["premise"] or not r["hypothesis"]:
                drop["empty"] += 1
                continue
            k = norm_key(r["premise"], r["hypothesis"])
            if k in conflict:
                drop["label-conflict"] += 1
                continue
            if k in seen:
                drop["duplicate"] += 1
                continue
            seen.add(k)
            kept[(r["dataset"], r["label"])].append(r)
        for (ds, lab), lst in sorted(kept.items()):
            cap = cap_for(caps, ds, lab)
            lst.sort(key=lambda r: r["id"])
            if cap is not None and len(lst) > cap:
                lst = rng.sample(lst, cap)
                drop["capped"] += len(kept[(ds, lab)]) - cap
            rows.extend(lst)
        stats[fn.__name__] = (len(raw), dict(drop))

    # global cap: drop deterministically from the largest (dataset, label) cells first
    rng = random.Random(a.seed)
    rows.sort(key=lambda r: r["id"])
    if len(rows) > a.max_total:
        cells = collections.defaultdict(list)
        for r in rows:
            cells[(r["dataset"], r["label"])].append(r)
        while sum(len(v) for v in cells.values()) > a.max_total:
            big = max(cells, key=lambda k: len(cells[k]))
            cells[big].pop(rng.randrange(len(cells[big])))
        rows = sorted((r for v in cells.values() for r in v), key=lambda r: r["id"])
    rng.shuffle(rows)

    def write(rs):
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0) as g:
            for r in rs:
                g.write((json.dumps(r, ensure_ascii=False) + "\n").encode("utf-8"))
        return buf.getvalue()

    blob = write(rows)
    while len(blob) > a.max_gz_bytes:
        rows = rows[: int(len(rows) * 0.95)]
        blob = write(rows)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "wb") as f:
        f.write(blob)

    print("existing pairs used for dedupe: %d" % n_existing)
    for k, (n, d) in stats.items():
        print("%-26s raw=%-6d dropped=%s" % (k, n, d))
    c = collections.Counter((r["dataset"], r["label"]) for r in rows)
    print("\n%-22s %8s %8s %8s %8s" % ("dataset", "entail", "neutral", "contra", "total"))
    for ds in sorted({d for d, _ in c}):
        e, n, x = c[(ds, "entailment")], c[(ds, "neutral")], c[(ds, "contradiction")]
        print("%-22s %8d %8d %8d %8d" % (ds, e, n, x, e + n + x))
    lc = collections.Counter(r["label"] for r in rows)
    print(
        "%-22s %8d %8d %8d %8d"
        % ("TOTAL", lc["entailment"], lc["neutral"], lc["contradiction"], len(rows))
    )
    print("wrote %s: %d rows, %d bytes gzipped" % (a.out, len(rows), len(blob)))


if __name__ == "__main__":
    main()
