"""Why nested-holdout selection struggles on RRPS: across outer holdout sets, the inner (cross-validated) score
of each candidate is *negatively* correlated with its error on the outer holdout, because the tuning and the
held-out policies partition one pool (a design's hard policies missing from the tuning set make it look good
inside exactly when it will fail outside).

Run:  .venv/bin/python benchmarks/studies/rposst_selection_diagnosis.py 1 40     # m, number of outer sets
"""
import sys
from pathlib import Path

import numpy as np
from certirank.methods.rposst import read_test_matrix, _core
from certirank.methods.rposst.compose import design
from certirank.methods.rposst.select import SELECT_RULES, parse_candidate, fit_candidate, nested_holdout
sm=read_test_matrix(str(next(p for p in (Path(__file__).resolve().parents[3] / 'shared', Path('/work/shared')) if p.is_dir()) / 'data' / 'games' / 'rrps_bots_43x43.csv'))
m=int(sys.argv[1]); nsets=int(sys.argv[2])
rng=np.random.default_rng(0); n=43
tup=_core.all_tuples(43,m)
cands=[parse_candidate(c) for c in SELECT_RULES['cv-rposst'].candidates]  # the seven designs diagnosed in session 3
run=lambda prob,mm,lev: (lambda o:(o["cases"],o["weights"]))(design(prob,mm,lev,"rm+",100,tuples=tup))
IN=[];OUT=[]
for s in range(nsets):
    hold=np.sort(rng.choice(n,9,replace=False)); tun=np.setdiff1d(np.arange(n),hold)
    S,_,_=sm.scaled(tun); A,Ah=S[:,tun],S[:,hold]
    T=_core.softmax_targets(A,[0,1,2,4]); P=_core.make_problem(A,T)
    cv=nested_holdout(A,np.array([0,1,2,4.]),m,0.01,cands,run,folds=5,holdout=0.2,metric="max",rng=np.random.default_rng(s),tuples=tup)
    IN.append(cv["mean"]); OUT.append([_core.pair_errors(Ah,T,*fit_candidate(cd,P,m,0.01,tup,run)).max() for cd in cands])
IN=np.array(IN);OUT=np.array(OUT)
for c,cd in enumerate(cands): print(f"{cd.name:18s} corr(inner,outer) across sets {np.corrcoef(IN[:,c],OUT[:,c])[0,1]:+.2f}")
d_in=IN-IN[:,[0]]; d_out=OUT-OUT[:,[0]]
for c,cd in enumerate(cands[1:],1): print(f"{cd.name:18s} corr of differences vs rposst {np.corrcoef(d_in[:,c],d_out[:,c])[0,1]:+.2f}")
