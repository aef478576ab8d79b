#pragma once
// The precompiled header of every translation unit that uses LibTorch.
#include <torch/torch.h>
