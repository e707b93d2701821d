// Copyright © 2025 The mlxbuild example authors.
// SPDX-License-Identifier: MIT
#include "third_party/hipcub/block_reduce.hpp"
int reduce() { return block_reduce(1); }
