"""Racing Arrows — **this project's re-creation**, not the game of Morrill et al. (2023) (spec 05 §12.2).

The paper's rules (its App. G.1) are not available. What is kept from the paper: two players, zero-sum,
one shot, continuous actions (angles in [0, π]); a "leader" blocks a faster "follower" who tries to pass;
a 0/1 score for the column player; both configurations are run; policy sets of 50 (or 500) evenly spaced
angles in [0.05π, 0.95π], each shifted by Uniform[−0.05π, 0.05π]. The movement and win rules below are
this project's stand-in:

- forward is +y; angles are measured from +x (π/2 = straight ahead);
- the leader starts at (0, 0) with speed 1, the follower at (0, −g) with speed v > 1; both move straight
  for t ∈ [0, 1];
- the follower wins iff it ends ahead (y_F(1) > y_L(1)) and never comes closer than r to the leader.

Defaults g = 0.5, v = 1.6, r = 0.3.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._validate import as_generator, check_choice, check_positive_int
from ..errors import ParameterError

__all__ = ["race_outcome", "follower_wins", "racing_arrows_angles", "racing_arrows_matrix", "CONFIGURATIONS",
           "LABEL"]

LABEL = "Racing Arrows (certirank re-creation; not the paper's rules)"
# configuration name = who the *policies* (columns) are; the other side are the test cases (rows)
CONFIGURATIONS = ("followers", "leaders")


def race_outcome(theta_leader: Any, theta_follower: Any, *, gap: float = 0.5, speed: float = 1.6,
                 radius: float = 0.3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lead y_F(1) − y_L(1), minimum distance over t ∈ [0, 1], and whether the follower wins.

    Angles broadcast against each other (radians).
    """
    tl = np.asarray(theta_leader, dtype=float)
    tf = np.asarray(theta_follower, dtype=float)
    lead = -gap + speed * np.sin(tf) - np.sin(tl)
    # relative position p_F(t) − p_L(t) = a + t b with a = (0, −g), b = v u_F − u_L
    bx = speed * np.cos(tf) - np.cos(tl)
    by = speed * np.sin(tf) - np.sin(tl)
    bb = bx * bx + by * by
    with np.errstate(invalid="ignore", divide="ignore"):
        t_star = np.where(bb > 0, np.clip(gap * by / np.where(bb > 0, bb, 1.0), 0.0, 1.0), 0.0)
    dx = t_star * bx
    dy = -gap + t_star * by
    distance = np.hypot(dx, dy)
    wins = (lead > 0) & (distance >= radius)
    return lead, distance, wins


def follower_wins(theta_leader: Any, theta_follower: Any, **rules: float) -> np.ndarray:
    """1{follower wins} for broadcast leader/follower angles (see :func:`race_outcome`)."""
    return race_outcome(theta_leader, theta_follower, **rules)[2]


def racing_arrows_angles(n_policies: int = 50, seed: Any = 0) -> tuple[np.ndarray, np.ndarray]:
    """Leader and follower angle sets: evenly spaced in [0.05π, 0.95π], each shifted by U[−0.05π, 0.05π].

    Leader shifts are drawn before follower shifts from one generator.
    """
    n_policies = check_positive_int("n_policies", n_policies, minimum=2)
    rng = as_generator(seed)
    base = np.linspace(0.05 * np.pi, 0.95 * np.pi, n_policies)
    leaders = base + rng.uniform(-0.05 * np.pi, 0.05 * np.pi, n_policies)
    followers = base + rng.uniform(-0.05 * np.pi, 0.05 * np.pi, n_policies)
    return leaders, followers


def racing_arrows_matrix(n_policies: int = 50, configuration: str = "followers", seed: Any = 0, *,
                         gap: float = 0.5, speed: float = 1.6, radius: float = 0.3) -> pd.DataFrame:
    """A test-case × policy 0/1 score matrix of the Racing Arrows re-creation (spec 05 §12.2).

    Parameters
    ----------
    n_policies : int
        Leaders and followers each (the paper used 50 or 500).
    configuration : {"followers", "leaders"}
        ``followers``: test cases = leaders, policies = followers, entry = 1{follower wins} (spec
        configuration (i)). ``leaders``: test cases = followers, policies = leaders, entry = 1{leader wins}
        (configuration (ii)). Both use the same sampled angles for a given seed.
    seed : int or Generator
        Seed of the angle shifts.
    gap, speed, radius : float
        Start gap g, follower speed v (> 1) and blocking radius r.

    Returns
    -------
    pandas.DataFrame
        Wide matrix (index ``test_case``) with names like ``L07@0.273pi``; ``df.attrs`` records the
        label, configuration, angles and rules. Pass it to ``certirank.compose_test``.
    """
    configuration = check_choice("configuration", configuration, CONFIGURATIONS)
    if not speed > 1.0 or not gap > 0 or not radius >= 0:
        raise ParameterError(f"Racing Arrows needs speed > 1, gap > 0 and radius >= 0; got speed={speed}, "
                             f"gap={gap}, radius={radius}")
    leaders, followers = racing_arrows_angles(n_policies, seed)
    wins = follower_wins(leaders[:, None], followers[None, :], gap=gap, speed=speed, radius=radius)
    width = len(str(n_policies - 1))
    lnames = [f"L{i:0{width}d}@{a / np.pi:.3f}pi" for i, a in enumerate(leaders)]
    fnames = [f"F{i:0{width}d}@{a / np.pi:.3f}pi" for i, a in enumerate(followers)]
    if configuration == "followers":
        frame = pd.DataFrame(wins.astype(float), index=pd.Index(lnames, name="test_case"), columns=fnames)
    else:
        frame = pd.DataFrame(1.0 - wins.T.astype(float), index=pd.Index(fnames, name="test_case"), columns=lnames)
    frame.attrs.update({"label": LABEL, "configuration": configuration, "leaders": leaders.tolist(),
                        "followers": followers.tolist(), "gap": gap, "speed": speed, "radius": radius})
    return frame
