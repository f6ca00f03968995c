# SPDX-License-Identifier: Apache-2.0
# PyTorch's side of bench-graph's attention case: forward (and with "bwd"
# the autograd backward) of softmax(Q K^T * scale) V on CPU, float32, at the
# given threads; torch.nn.functional.scaled_dot_product_attention when this
# PyTorch has it (2.0+), else the same math written out (1.13).  Prints
# "torch <fwd|bwd> <best ms> <peak RSS MiB> <impl>"; times are the process
# CPU time with 1 thread (a shared machine), else the wall clock.
import resource, sys, time
import torch
import torch.nn.functional as F

B, H, S, D, threads, reps, what = (int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
                                   int(sys.argv[5]), int(sys.argv[6]), sys.argv[7])
torch.set_num_threads(threads)
clock = time.process_time if threads == 1 else time.perf_counter
have = hasattr(F, "scaled_dot_product_attention")
scale = D ** -0.5
def attn(q, k, v):
    if have:
        return F.scaled_dot_product_attention(q, k, v)
    return torch.softmax(q @ k.transpose(-1, -2) * scale, -1) @ v
g = torch.Generator().manual_seed(1)
q = torch.rand(B, H, S, D, generator=g) * 2 - 1
k = torch.rand(B, H, S, D, generator=g) * 2 - 1
v = torch.rand(B, H, S, D, generator=g) * 2 - 1
best = 1e30
if what == "fwd":
    with torch.no_grad():
        for _ in range(reps):
            t0 = clock()
            o = attn(q, k, v)
            best = min(best, clock() - t0)
            del o
else:
    q.requires_grad_(); k.requires_grad_(); v.requires_grad_()
    do = torch.rand(B, H, S, D, generator=g) * 2 - 1
    for _ in range(reps):
        o = attn(q, k, v)
        t0 = clock()
        o.backward(do)
        best = min(best, clock() - t0)
        q.grad = k.grad = v.grad = None
        del o
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("torch %s %.1f %.0f %s" % (what, best * 1e3, rss, "sdpa" if have else "math"))
