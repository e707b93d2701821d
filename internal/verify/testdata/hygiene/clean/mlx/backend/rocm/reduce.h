/* Copyright © 2025 The mlxbuild example authors. */
#pragma once
int reduce();
