"""Issue 16 validity numbers: preference-graph FWER on coin battles; sorted finite table, file order vs shuffled WoR.

Run: PYTHONPATH=src python benchmarks/studies/preference_graph_and_table_order_validity.py (about 2 min on 2 cores).
"""
from pathlib import Path
import sys, math, numpy as np, certirank
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from test_preferences import battles
from test_groups_order import sorted_table
from certirank.methods.preferences import preference_graph
from certirank.methods.shuffled import shuffled_ranking
rng = np.random.default_rng(2026)
names = [f"p{i}" for i in range(6)]
strength = {(a, b): 0.5 for i, a in enumerate(names) for b in names[i + 1:]}
R = 300
e = sum(bool(preference_graph(battles(strength, 300, rng), 0.2).edges) for _ in range(R))
print(f"preference graph, 6 policies x 15 coin pairs, 300 battles, alpha=0.2: {e}/{R} = {e/R:.3f}")
rng = np.random.default_rng(16)
R = 200; wf = ws = 0
for r in range(R):
    tab = sorted_table(80, rng)
    if r < 40:
        wf += bool(certirank.anyrank(tab, alpha=0.1).decisions)
    ws += bool(shuffled_ranking(tab, 0.1, seed=r).decisions)
print(f"sorted finite table (3 policies, equal averages, N=80), alpha=0.1: AnyRank in file order {wf}/40 = {wf/40:.3f}; shuffled without replacement {ws}/{R} = {ws/R:.3f}")
