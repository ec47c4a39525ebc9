#!/usr/bin/env python3
"""Usage: make_ranks.py SRC_DIR OUT_DIR N. Makes a job of N ranks from the real DDP pair in SRC_DIR
(../shared/traces/hta_two_ranks): rank r is a copy
of sampled_rank-(r % 2) with distributedInfo.rank = r and world_size = N (gzip level 1)."""
import gzip, os, re, sys
src_dir, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
texts = [gzip.open(os.path.join(src_dir, f"sampled_rank-{i}.json.gz"), "rt").read() for i in (0, 1)]
os.makedirs(out, exist_ok=True)
for r in range(n):
    t = re.sub(r'"distributedInfo": \{[^}]*\}',
               '"distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d}' % (r, n),
               texts[r % 2], count=1)
    with gzip.open(os.path.join(out, f"rank{r}.json.gz"), "wt", compresslevel=1) as f:
        f.write(t)
