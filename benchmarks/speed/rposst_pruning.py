"""Exhaustive RM+ with and without the box lower-bound pruning (rm_plus_best), side by side in one process;
also asserts that both pick the same tuple, weights and round.

Run:  .venv/bin/python benchmarks/speed/rposst_pruning.py
"""
from pathlib import Path

import time, numpy as np
from certirank.methods.rposst import read_test_matrix, _core
sm=read_test_matrix(str(next(p for p in (Path(__file__).resolve().parents[3] / 'shared', Path('/work/shared')) if p.is_dir()) / 'data' / 'games' / 'rrps_bots_43x43.csv'))
for s in range(3):
    rng=np.random.default_rng(s); n=43
    hold=np.sort(rng.choice(n,9,replace=False)); tun=np.setdiff1d(np.arange(n),hold)
    S,_,_=sm.scaled(tun); A=S[:,tun]
    P=_core.make_problem(A,_core.softmax_targets(A,[0,1,2,4]))
    for m in (2,3):
      for eta in (0.01,0.1,0.5):
        tup=_core.all_tuples(43,m)
        t0=time.process_time(); sol=_core.rm_plus_all(P,tup,eta,300); i=_core.first_min(sol.loss); t1=time.process_time()
        j,L,w,r=_core.rm_plus_best(P,tup,eta,300); t2=time.process_time()
        assert i==j and L==sol.loss[i] and np.array_equal(w,sol.weights[i]), (i,j)
        print(f"set {s} m={m} eta={eta}: exhaustive {t1-t0:.2f} s CPU, pruned {t2-t1:.2f} s CPU")
