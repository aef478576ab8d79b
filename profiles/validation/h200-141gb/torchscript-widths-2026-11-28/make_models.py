# A TorchScript model of a user's own, at two widths: a residual MLP with LayerNorm and GELU,
# input [32], 10 classes. Written with Python's torch on the GPU host, trained by crossover's
# torchscript workload (profiles/validation/h200-141gb/torchscript-widths-2026-11-28/grid.json).
import sys
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return x + torch.nn.functional.gelu(self.fc(self.norm(x)))


class ResidualMlp(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.inp = nn.Linear(32, width)
        self.blocks = nn.Sequential(Block(width), Block(width), Block(width))
        self.out = nn.Linear(width, 10)

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))


torch.manual_seed(0)
for width in (256, 2048):
    torch.jit.script(ResidualMlp(width)).save(f"{sys.argv[1]}/residual-mlp-w{width}.pt")
    print(f"residual-mlp-w{width}.pt", sum(p.numel() for p in ResidualMlp(width).parameters()), "parameters")
