"""Public-API messages found by the CLI audit: one-line errors that speak public names and plain numbers."""

from __future__ import annotations

import numpy as np
import pytest


def test_load_rejects_non_paths_with_one_line():
    import certirank
    from certirank.errors import CertirankError
    for bad in (None, 5):  # None is refused by the parameter contract, 5 by the reader registry: the same sentence
        with pytest.raises(CertirankError, match="file path or a pandas DataFrame"):
            certirank.load(bad)


def test_error_messages_show_plain_numbers_not_numpy_reprs():
    import certirank
    from certirank.errors import CertirankError
    for call in (lambda: certirank.compare([1.5, 0.2], [0.2, 0.3]), lambda: certirank.e_holm([-1.0, 2.0], 0.05)):
        with pytest.raises(CertirankError) as info:
            call()
        assert "np.float64" not in str(info.value)
        assert "1.5" in str(info.value) or "-1" in str(info.value)


def test_negative_seed_is_a_parameter_error_in_the_api():
    from certirank._validate import as_generator
    from certirank.errors import ParameterError

    with pytest.raises(ParameterError, match="seed must be a non-negative integer"):
        as_generator(-1)
    assert as_generator(3).integers(100) == np.random.default_rng(3).integers(100)


def test_bonferroni_result_states_its_own_guarantee():
    from certirank.methods.anyrank import run_campaign

    scores = np.random.default_rng(0).binomial(1, [0.2, 0.5, 0.8], size=(300, 3))
    res = run_campaign(scores, alpha=0.1, method="bonferroni")
    assert "Bonferroni" in res.statement and "Theorem 1" not in res.statement
    res = run_campaign(scores, alpha=0.1, method="anyrank0")
    assert "Theorem 1" in res.statement


def test_anyrank_refuses_more_policies_than_its_graph_is_built_for():
    from certirank.errors import ParameterError
    from certirank.methods.anyrank import MAX_POLICIES, run_campaign

    scores = np.random.default_rng(0).random((3, MAX_POLICIES + 1))  # a transposed table: many "policies"
    with pytest.raises(ParameterError, match="at most"):
        run_campaign(scores)
