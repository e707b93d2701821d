// Copied from hipCUB. Licence: BSD-3-Clause (see NOTICE).
#pragma once
#include <cstdint>
// Works around ROCm/hipCUB#123 on gfx1030; see also https://github.com/ROCm/hipCUB/issues/7
// and &#123; in generated docs, colour #000000.
#define HIPCUB_WAVE 32
template <typename T> T block_reduce(T v) { return v; }
