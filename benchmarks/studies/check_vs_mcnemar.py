"""Does `certirank check` on a whole binary item table certify what McNemar's exact test + Holm certifies?

Usage::

    .venv/bin/python benchmarks/studies/check_vs_mcnemar.py [PATH]

Every pair of models of the table (default: ../shared/data/llm/helm_lite_gsm8k.csv, 83 models x 1,000 items) is
claimed in the order of the full-table means and checked by `certirank.check` with nothing set (binary items: the
exact budget test with the items as budget and 95 % of each claim's level on McNemar at the end, Holm over the
claims), beside McNemar's exact two-sided test + Holm at alpha = 0.05 (the fixed-time reference lm-eval users
ask for). Prints both counts and the CPU time.
"""
import sys
import certirank, itertools, time, numpy as np, pandas as pd
from scipy.stats import binomtest
from pathlib import Path
path=sys.argv[1] if len(sys.argv)>1 else str(Path(__file__).resolve().parents[3]/"shared"/"data"/"llm"/"helm_lite_gsm8k.csv")
t=certirank.load(path)
wide=t.pivot_table(index="env", columns="policy", values="score")
means=wide.mean().sort_values(ascending=False)
names=list(means.index)
claims=[f"{a}>{b}" for a,b in itertools.combinations(names,2)]
t0=time.process_time()
r=certirank.check(path, claims)
cert=sum(c["status"]!="not certified" for c in r.claims)
# McNemar exact (two-sided) + Holm, the fixed-time reference
ps=[]
for a,b in itertools.combinations(names,2):
    x,y=wide[a],wide[b]; ok=x.notna()&y.notna(); x,y=x[ok],y[ok]
    n10=int(((x==1)&(y==0)).sum()); n01=int(((x==0)&(y==1)).sum())
    ps.append(binomtest(n10,n10+n01,0.5).pvalue if n10+n01 else 1.0)
ps=np.array(ps); order=np.argsort(ps); m=len(ps); rej=np.zeros(m,bool)
for k,i in enumerate(order):
    if ps[i]<=0.05/(m-k): rej[i]=True
    else: break
print(f"models {len(names)}, pairs {m}: check certifies {cert}, McNemar+Holm {rej.sum()} ({cert/rej.sum():.1%}); {time.process_time()-t0:.0f} s CPU")
print(r.warnings[:2])
