import random

import pytest

from verifier.relations import calibration
from verifier.relations.calibration import CalibrationRefused, calibrate, roc_auc


@pytest.mark.parametrize(
    ("scores", "labels", "auc"),
    [
        ([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1], 1.0),
        ([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1], 0.0),
        ([0.5, 0.5, 0.5, 0.5], [0, 1, 0, 1], 0.5),
        ([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], 0.75),
        ([0.1, 0.2], [1, 1], None),
    ],
)
def test_roc_auc(scores, labels, auc):
    assert roc_auc(scores, labels) == (pytest.approx(auc) if auc is not None else None)


def separable(n, seed=1):
    rng = random.Random(seed)
    rows, labels = [], []
    for i in range(n):
        y = i % 2
        jac = rng.uniform(0.5, 1.0) if y else rng.uniform(0.0, 0.4)
        rows.append([rng.uniform(0, 1), jac, 1.0, 0.0])
        labels.append(y)
    return rows, labels


def test_auc_on_separable_data_is_held_out_and_high():
    rows, labels = separable(200)
    result = calibrate(rows, labels, epochs=2000, lr=1.0)
    assert result.n_train == 160 and result.n_test == 40
    assert result.auc == pytest.approx(1.0)
    assert result.weights["jaccard"] > 0


@pytest.mark.parametrize(
    ("n", "labels_fn", "message"),
    [
        (49, lambda i: i % 2, "at least 50"),
        (100, lambda i: 1, "one class"),
        (100, lambda i: 0, "one class"),
    ],
)
def test_refusals(n, labels_fn, message):
    rows = [[0.5, 0.5, 1.0, 0.0]] * n
    with pytest.raises(CalibrationRefused, match=message):
        calibrate(rows, [labels_fn(i) for i in range(n)])


def test_min_samples_is_configurable():
    rows, labels = separable(20)
    assert calibrate(rows, labels, min_samples=10).n_train == 16


def test_split_is_deterministic_and_disjoint():
    train, test = calibration.split(100, 0.2, 0)
    assert len(test) == 20 and not set(train) & set(test)
    assert calibration.split(100, 0.2, 0) == (train, test)


def test_constant_component_gets_zero_weight_and_ranking_follows_the_signal():
    """A near-constant component must not act as a second intercept and flip the sign
    of a weak signal (failed on plain gradient descent on the raw components)."""
    rng = random.Random(3)
    rows, labels = [], []
    for i in range(300):
        y = 1 if i % 3 == 0 else 0  # one positive in three, like the KG bench
        jac = 0.9 + (0.05 if y else 0.0) + rng.uniform(-0.04, 0.04)
        rows.append([0.5, jac, 1.0, 0.0])
        labels.append(y)
    result = calibrate(rows, labels)
    assert result.weights["base"] == 0.0 and result.weights["type_boost"] == 0.0
    assert result.weights["jaccard"] > 0
    assert result.auc is not None and result.auc > 0.8
