#!/usr/bin/env python3
# Usage, on a GPU machine with a CUDA torch for python3: python3 scripts/gpu-profile-step.py
# Where a training step's time goes on this GPU, by operator (torch.profiler), for the two
# execution-mode targets crossover misses: ResNet-18 (torchvision's layout, as
# workloads/models/resnet.cpp builds it) at batch 256 on 3x32x32 images, and Linear(784, 10) at
# batch 128 as a CUDA graph. Python's torch, not crossover: the floor the same card sets.
import sys, time, torch, torch.nn as nn, torch.nn.functional as F
dev = "cuda"
torch.manual_seed(0)

class Block(nn.Module):
    def __init__(s, i, o, st):
        super().__init__()
        s.c1 = nn.Conv2d(i, o, 3, st, 1, bias=False); s.b1 = nn.BatchNorm2d(o)
        s.c2 = nn.Conv2d(o, o, 3, 1, 1, bias=False); s.b2 = nn.BatchNorm2d(o)
        s.d = None if st == 1 and i == o else nn.Sequential(nn.Conv2d(i, o, 1, st, 0, bias=False), nn.BatchNorm2d(o))
    def forward(s, x):
        y = F.relu(s.b1(s.c1(x))); y = s.b2(s.c2(y))
        return F.relu(y + (x if s.d is None else s.d(x)))

class ResNet18(nn.Module):
    def __init__(s):
        super().__init__()
        s.c = nn.Conv2d(3, 64, 7, 2, 3, bias=False); s.b = nn.BatchNorm2d(64)
        L, i = [], 64
        for p in (64, 128, 256, 512):
            L += [Block(i, p, 1 if p == 64 else 2), Block(p, p, 1)]; i = p
        s.L = nn.Sequential(*L); s.fc = nn.Linear(512, 10)
    def forward(s, x):
        x = F.max_pool2d(F.relu(s.b(s.c(x))), 3, 2, 1)
        return s.fc(F.adaptive_avg_pool2d(s.L(x), 1).flatten(1))

def timed(step, n=30, warm=5):
    for _ in range(warm): step()
    torch.cuda.synchronize(); t = time.perf_counter()
    for _ in range(n): step()
    torch.cuda.synchronize(); return (time.perf_counter() - t) / n * 1e3

def case(make_model, shape, classes, batch, opt_kw, bench=False, cl=False, graph=False, prof=False, label=""):
    torch.backends.cudnn.benchmark = bench
    m = make_model().to(dev)
    if cl: m = m.to(memory_format=torch.channels_last)
    o = torch.optim.Adam(m.parameters(), lr=1e-3, **opt_kw)
    x = torch.randn(batch, *shape, device=dev); y = torch.randint(0, classes, (batch,), device=dev)
    if cl: x = x.to(memory_format=torch.channels_last)
    def step():
        o.zero_grad(set_to_none=True); F.cross_entropy(m(x), y).backward(); o.step()
    if graph:
        s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3): step()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            step()
        run = g.replay
    else:
        run = step
    ms = timed(run)
    print(f"{label:55s} {ms:8.3f} ms/step", flush=True)
    if prof:
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
            for _ in range(5): run()
            torch.cuda.synchronize()
        ka = p.key_averages()
        print(ka.table(sort_by="self_cuda_time_total", row_limit=12, max_name_column_width=40))
        print(ka.table(sort_by="self_cpu_time_total", row_limit=10, max_name_column_width=40))
    return ms

print(torch.__version__, torch.cuda.get_device_name(0))
R = lambda: ResNet18()
case(R, (3, 32, 32), 10, 256, dict(foreach=False), label="resnet18 b256 fp32 adam loop", prof=True)
case(R, (3, 32, 32), 10, 256, dict(foreach=True), label="resnet18 b256 fp32 adam foreach")
case(R, (3, 32, 32), 10, 256, dict(fused=True), label="resnet18 b256 fp32 adam fused", prof=True)
case(R, (3, 32, 32), 10, 256, dict(fused=True), bench=True, label="resnet18 fused + cudnn.benchmark")
case(R, (3, 32, 32), 10, 256, dict(fused=True), bench=True, cl=True, label="resnet18 fused + benchmark + channels_last")
case(R, (3, 32, 32), 10, 256, dict(fused=True, capturable=True), graph=True, label="resnet18 fused, CUDA graph")
Lin = lambda: nn.Linear(784, 10)
case(Lin, (784,), 10, 128, dict(foreach=False), label="linear784x10 b128 adam loop eager")
case(Lin, (784,), 10, 128, dict(fused=True), label="linear784x10 b128 adam fused eager")
case(Lin, (784,), 10, 128, dict(fused=True, capturable=True), graph=True, label="linear784x10 b128 fused, CUDA graph", prof=True)
