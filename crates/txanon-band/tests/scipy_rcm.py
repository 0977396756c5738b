# Reference for the band tests: scipy's reverse_cuthill_mckee on the pattern of A·Aᵀ (or of the
# padded A + Aᵀ), and bandwidth and profile of the input and of scipy's ordering, computed here
# independently of the Rust code. Usage: scipy_rcm.py FIMI_FILE aat|sym-pad OUT_ORDER
# Prints: seconds_build seconds_rcm nnz bw_in prof_in bw_scipy prof_scipy
import sys, time
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

path, graph, out = sys.argv[1], sys.argv[2], sys.argv[3]
# Dense item ids as the ranks of the labels (txanon's numbering).
items = sorted({int(t) for line in open(path) for t in line.split()})
rank = {v: k for k, v in enumerate(items)}
rows, cols = [], []
n = 0
with open(path) as f:
    for r, line in enumerate(f):
        for tok in set(line.split()):
            rows.append(r)
            cols.append(rank[int(tok)])
        n = r + 1
m = len(items)
t0 = time.perf_counter()
if graph == "aat":
    a = sp.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows, cols)), shape=(n, m))
    b = (a @ a.T).tocsr()
else:
    size = max(n, m)
    a = sp.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows, cols)), shape=(size, size))
    b = (a + a.T).tocsr()
b.sort_indices()
t1 = time.perf_counter()
perm = reverse_cuthill_mckee(b, symmetric_mode=True)
t2 = time.perf_counter()
np.savetxt(out, perm, fmt="%d")

def envelope(order):
    pos = np.empty(len(order), dtype=np.int64)
    pos[order] = np.arange(len(order))
    coo = b.tocoo()
    pr, pc = pos[coo.row], pos[coo.col]
    bandwidth = int(np.abs(pr - pc).max()) if len(pr) else 0
    first = pos.copy()
    np.minimum.at(first, coo.row, pc)
    profile = int((pos - first).sum())
    return bandwidth, profile

bw0, p0 = envelope(np.arange(b.shape[0]))
bw1, p1 = envelope(perm)
print(f"{t1 - t0:.3f} {t2 - t1:.3f} {b.nnz} {bw0} {p0} {bw1} {p1}")
