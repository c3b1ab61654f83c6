"""Simultaneous-move RPOSST (spec 05 §9, paper App. F): a randomised test.

The antagonist picks its (policy, target) pairs without seeing the tuple, so the protagonist may randomise:
a distribution π over tuples, each tuple τ with its own weights w_τ, a fresh tuple drawn for every test.
The loss of pair q is the expectation Σ_τ π_τ |w_τᵀa_{τ,q} − b_q|, and the objective is its CVaR_η over Ψ.

Substituting v_τ = π_τ w_τ makes every term |v_τᵀa_{τ,q} − π_τ b_q| jointly convex, so the whole game is
one LP (this project's exact solution; the paper's no-regret procedure is not reproduced):

    minimise  ζ + (1/η) Σ_q ψ_q u_q
    s.t.      u_q ≥ Σ_τ t_{τq} − ζ,  u ≥ 0,  t_{τq} ≥ ±(v_τᵀa_{τ,q} − π_τ b_q),
              Σ_k v_{τk} = π_τ,  Σ_τ π_τ = 1,  v, π ≥ 0.

Its value is never above the sequential (deterministic) optimum, since a pure π is feasible.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb
from typing import Any, ClassVar

import numpy as np
from scipy import optimize, sparse

from ...errors import ParameterError
from ...results import Result, inputs
from . import _core

__all__ = ["SimultaneousComposition", "compose_simultaneous", "solve_simultaneous", "mixture_loss"]

# the LP has C·d absolute-value variables; beyond this it is refused (it is meant for small pools)
MAX_LP_TERMS = 400_000
# tuples with less probability than this are dropped from the reported mixture (the rest is renormalised)
_MIN_PROB = 1e-9


@dataclass(frozen=True)
class SimultaneousComposition(Result):
    """A randomised test: draw one of `mixture`'s tests with its probability for every policy tested.

    Attributes
    ----------
    mixture : list of dict
        ``test_cases``, ``test_indices``, ``weights`` and ``probability`` of each tuple in the support,
        most probable first.
    loss : float
        CVaR_η over Ψ of the expected absolute error (the LP optimum, recomputed from the mixture).
    """

    KIND: ClassVar[str] = "compose-test-simultaneous"

    mixture: list[dict[str, Any]]
    loss: float
    m: int = inputs()
    eta: float = inputs()
    betas: list[float] = inputs()
    n_test_cases: int
    n_policies: int
    n_pairs: int
    n_tuples: int
    variant: str = inputs(default="simultaneous")
    targets: list[list[float]] = field(default_factory=list)
    scale: dict[str, float | None] = field(default_factory=dict)

    def describe(self) -> str:
        return (f"randomised test over {len(self.mixture)} tuple(s) of {self.m} case(s); "
                f"CVaR({self.eta:g}) of the expected error {self.loss:.4f}")


def mixture_loss(problem: _core.Problem, tuples: np.ndarray, probs: np.ndarray, weights: np.ndarray,
                 eta: float) -> float:
    """CVaR_η over Ψ of Σ_τ π_τ |w_τᵀa_{τ,q} − b_q| (evaluated directly, independent of the LP)."""
    a = problem.AP[tuples.T]  # (m, C, d)
    loss = np.abs(np.einsum("ck,kcd->cd", weights, a) - problem.b)
    expected = probs @ loss
    return float(np.asarray(_core._Antagonist(problem.psi, eta)(expected[None, :])[0])[0])


def solve_simultaneous(problem: _core.Problem, tuples: np.ndarray,
                       eta: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Exact LP of the module docstring: (π over `tuples`, weights (C, m), objective)."""
    keep = problem.psi > 0
    psi, b = problem.psi[keep], problem.b[keep]
    AP = problem.AP[:, keep]
    C, m = tuples.shape
    d = psi.size
    if C * d > MAX_LP_TERMS:
        raise ParameterError(f"the simultaneous-move LP would have {C:,} tuples × {d} pairs = {C * d:,} terms "
                             f"(limit {MAX_LP_TERMS:,}); use fewer test cases, a smaller m or the sequential variant")
    # variable layout: π (C) | v (C·m) | t (C·d) | ζ (1) | u (d)
    o_v, o_t = C, C + C * m
    o_z, o_u = o_t + C * d, o_t + C * d + 1
    nx = o_u + d
    c = np.zeros(nx)
    c[o_z] = 1.0
    c[o_u:] = psi / eta
    rows, cols, vals, rhs = [], [], [], []
    r = 0
    a = AP[tuples.T]  # (m, C, d)
    for tau in range(C):
        for q in range(d):
            for sign in (1.0, -1.0):
                # sign·(vᵀa − π b) − t ≤ 0
                rows += [r] * (m + 2)
                cols += [o_v + tau * m + k for k in range(m)] + [tau, o_t + tau * d + q]
                vals += [sign * a[k, tau, q] for k in range(m)] + [-sign * b[q], -1.0]
                rhs.append(0.0)
                r += 1
    for q in range(d):  # Σ_τ t_τq − ζ − u_q ≤ 0
        rows += [r] * (C + 2)
        cols += [o_t + tau * d + q for tau in range(C)] + [o_z, o_u + q]
        vals += [1.0] * C + [-1.0, -1.0]
        rhs.append(0.0)
        r += 1
    A_ub = sparse.csr_matrix((vals, (rows, cols)), shape=(r, nx))
    eq_rows, eq_cols, eq_vals = [], [], []
    for tau in range(C):  # Σ_k v_τk − π_τ = 0
        eq_rows += [tau] * (m + 1)
        eq_cols += [o_v + tau * m + k for k in range(m)] + [tau]
        eq_vals += [1.0] * m + [-1.0]
    eq_rows += [C] * C
    eq_cols += list(range(C))
    eq_vals += [1.0] * C
    A_eq = sparse.csr_matrix((eq_vals, (eq_rows, eq_cols)), shape=(C + 1, nx))
    b_eq = np.r_[np.zeros(C), 1.0]
    bounds = [(0, None)] * (o_z) + [(None, None)] + [(0, None)] * d
    res = optimize.linprog(c, A_ub=A_ub, b_ub=np.asarray(rhs), A_eq=A_eq, b_eq=b_eq, bounds=bounds,
                           method="highs")
    if res.status != 0:  # pragma: no cover - always feasible and bounded
        raise RuntimeError(f"HiGHS failed on the simultaneous-move LP: {res.message}")
    probs = np.clip(res.x[:C], 0.0, None)
    v = np.clip(res.x[o_v:o_t].reshape(C, m), 0.0, None)
    weights = np.full((C, m), 1.0 / m)
    live = probs > _MIN_PROB
    weights[live] = v[live] / v[live].sum(axis=1, keepdims=True)
    probs = np.where(live, probs, 0.0)
    return probs / probs.sum(), weights, float(res.fun)


def compose_simultaneous(sm: Any, A: np.ndarray, m: int, eta: float, betas: np.ndarray, *,
                         psi: np.ndarray | None, scale: dict[str, float | None]) -> SimultaneousComposition:
    """`compose_test(..., variant="simultaneous")` on a prepared (rescaled) matrix."""
    targets = _core.softmax_targets(A, betas)
    problem = _core.make_problem(A, targets, psi)
    n_cases = A.shape[0]
    tuples = _core.all_tuples(n_cases, m) if comb(n_cases, m) * problem.d <= MAX_LP_TERMS else None
    if tuples is None:
        raise ParameterError(f"the simultaneous-move LP would have C({n_cases}, {m}) × {problem.d} terms "
                             f"(limit {MAX_LP_TERMS:,}); use fewer test cases, a smaller m or the sequential variant")
    probs, weights, _ = solve_simultaneous(problem, tuples, eta)
    order = np.argsort(-probs, kind="stable")
    mixture = [{"test_cases": [sm.test_cases[i] for i in tuples[t]], "test_indices": [int(i) for i in tuples[t]],
                "weights": [float(w) for w in weights[t]], "probability": float(probs[t])}
               for t in order if probs[t] > 0]
    loss = mixture_loss(problem, tuples, probs, weights, eta)
    return SimultaneousComposition(mixture=mixture, loss=loss, m=m, eta=eta, betas=[float(b) for b in betas],
                                   n_test_cases=n_cases, n_policies=A.shape[1], n_pairs=problem.d,
                                   n_tuples=len(tuples), targets=targets.tolist(), scale=scale)
