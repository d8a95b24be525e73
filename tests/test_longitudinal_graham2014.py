"""Graham et al. (2014), Tables 3-5: the calibrated-gain arithmetic from published means.

Published quantities, read from the paper: per language pair (Tables 4 and 5) the means CURR07,
CURR12, BEST07, BEST12, the difficulty change Δ = CURR07 − CURR12, the best-system change
BEST12 − BEST07 and the 5-year gain = (BEST12 − BEST07) + Δ. Table 3 averages the seven pairs
(each pair once, judgment counts summed) and combines its own rounded columns the same way.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from leaderboard.human.longitudinal import aggregate_gains, calibrated_gain

# (curr07, curr12, delta, best07, best12, best difference, gain) as printed, per pair and row.
TABLES_4_5 = {
    "de-en": {"fluency": (65.3, 57.9, 7.4, 52.8, 55.0, 2.2, 9.6),
              "adequacy": (63.8, 52.8, 11.0, 46.5, 49.8, 3.3, 14.3),
              "BLEU": (38.3, 26.5, 11.8, 21.1, 23.8, 2.7, 14.5),
              "METEOR": (40.3, 32.7, 7.6, 33.4, 31.7, -1.7, 5.9)},
    "fr-en": {"fluency": (65.9, 58.0, 7.9, 57.8, 60.2, 2.4, 10.3),
              "adequacy": (61.0, 52.3, 8.7, 52.7, 51.5, -1.2, 7.5),
              "BLEU": (39.4, 32.0, 7.4, 28.6, 31.5, 2.9, 10.3),
              "METEOR": (39.8, 34.6, 5.2, 35.9, 34.3, -1.6, 3.6)},
    "es-en": {"fluency": (68.4, 59.2, 9.2, 56.7, 56.7, 0.0, 9.2),
              "adequacy": (68.0, 56.9, 11.1, 59.0, 55.7, -3.3, 7.8),
              "BLEU": (51.2, 38.3, 12.9, 35.1, 33.5, -1.6, 11.3),
              "METEOR": (45.4, 37.0, 8.4, 39.9, 36.0, -3.9, 4.5)},
    "cs-en": {"fluency": (62.3, 49.9, 12.4, 40.8, 50.5, 9.7, 22.1),
              "adequacy": (62.4, 47.5, 14.9, 41.7, 47.4, 5.7, 20.6),
              "BLEU": (52.3, 25.0, 27.3, 25.1, 22.4, -2.7, 24.6),
              "METEOR": (44.7, 31.6, 13.1, 34.3, 30.8, -3.5, 9.6)},
    "en-es": {"fluency": (77.2, 73.4, 3.8, 63.3, 71.9, 8.6, 12.4),
              "adequacy": (75.2, 68.1, 7.1, 62.5, 67.2, 4.7, 11.8),
              "BLEU": (48.2, 38.7, 9.5, 29.1, 35.3, 6.2, 15.7),
              "METEOR": (69.9, 59.6, 10.3, 57.0, 58.1, 1.1, 11.4)},
    "en-fr": {"fluency": (57.1, 55.2, 1.9, 49.5, 56.4, 6.9, 8.8),
              "adequacy": (64.2, 61.9, 2.3, 57.2, 62.3, 5.1, 7.4),
              "BLEU": (37.2, 30.8, 6.4, 25.3, 29.9, 4.6, 11.0),
              "METEOR": (59.4, 52.9, 6.5, 50.4, 52.0, 1.6, 8.1)},
    "en-de": {"fluency": (52.3, 54.1, -1.8, 53.7, 55.5, 1.8, 0.0),
              "adequacy": (60.3, 57.4, 2.9, 58.3, 58.3, 0.0, 2.9),
              "BLEU": (23.6, 18.7, 4.9, 14.6, 17.2, 2.6, 7.5),
              "METEOR": (44.7, 39.1, 5.6, 36.7, 38.0, 1.3, 6.9)},
}
# judgment counts n (curr07, curr12, best07, best12) of the human rows, Tables 4 and 5
COUNTS = {
    "de-en": {"fluency": (2164, 3381, 2242, 3253), "adequacy": (1458, 2175, 1454, 2193)},
    "fr-en": {"fluency": (2172, 3267, 2203, 3238), "adequacy": (1754, 2651, 1763, 2712)},
    "es-en": {"fluency": (1514, 2234, 1462, 2230), "adequacy": (1495, 2193, 1492, 2180)},
    "cs-en": {"fluency": (1873, 2816, 1923, 2828), "adequacy": (1218, 1830, 1257, 1855)},
    "en-es": {"fluency": (2286, 3318, 2336, 3420), "adequacy": (1410, 2039, 1399, 2112)},
    "en-fr": {"fluency": (1008, 1645, 1039, 1588), "adequacy": (1234, 1877, 1274, 1775)},
    "en-de": {"fluency": (1317, 1993, 1308, 2022), "adequacy": (1453, 2105, 1410, 2152)},
}
# Table 3 (all seven pairs): curr07, curr12, delta, best07, best12, best difference, gain
TABLE_3 = {
    "fluency": (64.1, 58.2, 5.9, 53.5, 58.0, 4.5, 10.4),
    "fluency z": (0.18, 0.00, 0.18, -0.16, 0.00, 0.16, 0.34),
    "adequacy": (65.0, 56.7, 8.3, 54.0, 56.0, 2.0, 10.3),
    "adequacy z": (0.18, -0.07, 0.25, -0.16, -0.09, 0.07, 0.32),
    "BLEU": (41.5, 30.0, 11.4, 25.6, 27.7, 2.1, 13.5),
    "METEOR": (49.2, 41.1, 8.1, 41.1, 40.1, -1.0, 7.1),
}
TABLE_3_COUNTS = {"fluency": (12334, 18654, 12513, 18579), "adequacy": (10022, 14870, 10049, 14979)}


def _pairs(row: str) -> np.ndarray:
    return np.array([TABLES_4_5[lp][row] for lp in TABLES_4_5])


@pytest.mark.parametrize("row", ["fluency", "adequacy", "BLEU", "METEOR"])
def test_per_pair_gains_reproduce_tables_4_and_5(row):
    c07, c12, delta, b07, b12, diff, gain = _pairs(row).T
    got = calibrated_gain(b07, b12, c07, c12)
    # the per-pair columns were computed from the printed (rounded) means: exact to rounding noise
    np.testing.assert_allclose(got["delta"], delta, atol=1e-9)
    np.testing.assert_allclose(got["best_difference"], diff, atol=1e-9)
    np.testing.assert_allclose(got["gain"], gain, atol=1e-9)


def test_cs_en_gain_is_the_largest_and_en_de_fluency_gain_is_zero():
    gains = {lp: calibrated_gain(*np.array(TABLES_4_5[lp]["fluency"])[[3, 4, 0, 1]])["gain"] for lp in TABLES_4_5}
    assert max(gains, key=gains.get) == "cs-en" and gains["cs-en"] == pytest.approx(22.1)
    # en-de: the benchmark scored lower on the "easier" 2007 set (Δ = −1.8) and cancels the +1.8
    assert gains["en-de"] == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("row", list(TABLE_3))
def test_table_3_gain_is_published_delta_plus_published_best_difference(row):
    c07, c12, delta, b07, b12, diff, gain = TABLE_3[row]
    # the published aggregate combines the published columns: +10.4, +10.3, +13.5 (and z, METEOR)
    assert calibrated_gain(0.0, diff, delta, 0.0)["gain"] == pytest.approx(gain, abs=1e-9)


@pytest.mark.parametrize("row", list(TABLE_3))
def test_table_3_gain_from_its_printed_means(row):
    c07, c12, delta, b07, b12, diff, gain = TABLE_3[row]
    got = calibrated_gain(b07, b12, c07, c12)
    assert got["best_difference"] == pytest.approx(diff, abs=1e-9)
    if row == "BLEU":
        # the printed BLEU means give Δ = 41.5 − 30.0 = 11.5 and gain 13.6; the paper prints 11.4
        # and 13.5, computed before the means were rounded: one rounding step (0.1) apart
        assert got["delta"] == pytest.approx(11.5, abs=1e-9)
        assert abs(got["gain"] - gain) == pytest.approx(0.1, abs=1e-9)
    else:
        assert got["delta"] == pytest.approx(delta, abs=1e-9)
        assert got["gain"] == pytest.approx(gain, abs=1e-9)


@pytest.mark.parametrize("row", ["fluency", "adequacy", "BLEU", "METEOR"])
def test_table_3_is_the_unweighted_mean_of_the_seven_pairs(row):
    c07, c12, _, b07, b12, _, _ = _pairs(row).T
    table = pd.DataFrame({"curr_from": c07, "curr_to": c12, "best_from": b07, "best_to": b12})
    if row in COUNTS["de-en"]:
        counts = np.array([COUNTS[lp][row] for lp in COUNTS])
        table = table.assign(n_curr_from=counts[:, 0], n_curr_to=counts[:, 1],
                             n_best_from=counts[:, 2], n_best_to=counts[:, 3])
    agg = aggregate_gains(table)
    pub = TABLE_3[row]
    assert agg["pairs"] == 7
    for key, published in zip(("curr_from", "curr_to", "best_from", "best_to"), (pub[0], pub[1], pub[3], pub[4])):
        # each Table 3 mean is the average of seven means printed to one decimal
        assert abs(agg[key] - published) <= 0.05 + 1e-9, key
    # the mean of the per-pair gains; the paper's rounded aggregate is within one rounding step
    assert agg["gain"] == pytest.approx(np.mean(_pairs(row)[:, 6]), abs=1e-9)
    assert abs(agg["gain"] - pub[6]) <= 0.1
    if row in TABLE_3_COUNTS:
        assert (agg["n_curr_from"], agg["n_curr_to"], agg["n_best_from"], agg["n_best_to"]) == TABLE_3_COUNTS[row]


def test_weighting_by_judgments_would_not_give_table_3():
    # guards the reading "each pair counts once": the n-weighted fluency CURR07 mean is 65.5, not 64.1
    rows = _pairs("fluency")
    n = np.array([COUNTS[lp]["fluency"][0] for lp in COUNTS])
    assert abs(np.average(rows[:, 0], weights=n) - TABLE_3["fluency"][0]) > 1.0
    assert abs(rows[:, 0].mean() - TABLE_3["fluency"][0]) < 0.05


def test_calibrated_gain_scalar_and_sign_convention():
    # the later test set is harder (benchmark drops 10), the best system drops 4: real gain +6
    got = calibrated_gain(best_from=70.0, best_to=66.0, curr_from=60.0, curr_to=50.0)
    assert got == {"delta": 10.0, "best_difference": -4.0, "gain": 6.0}
    assert all(isinstance(v, float) for v in got.values())
