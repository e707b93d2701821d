#!/usr/bin/env bash
# make.sh REPO OUT: a stand-in project shaped like the real ROCm fork's tree,
# generated from rocm-tree.tsv (the recorded listing of the materialized tree:
# path TAB size, 1027 files), with no MLX source in it.
#
# OUT gets the repository's mlxbuild.yaml and examples/minimlx (the example
# the shape is built on, so build:rocm and build:cpu work with Debian's
# ROCm), and every listed file the example lacks, as filler of its recorded
# size: files under mlx/backend/rocm/ go into the ROCm overlay (as in the
# fork), the rest into the pristine source. Each filler .cpp under mlx/
# (not cuda, metal or rocm) includes up to eight filler headers of its folder
# and a few standard headers, and is added to the library, so the build has
# about as many Ninja steps (about 145) and no-work record entries (tree
# headers, system headers) as the real one. Build it with
#   cd OUT && MLXBUILD_CACHE=OUT/cache MLX_ROCM_ARCHITECTURES=gfx1030 mlxbuild build:rocm
set -euo pipefail
repo=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
tsv=$here/rocm-tree.tsv
[ -f "$repo/mlxbuild.yaml" ] || { echo "make.sh: $repo/mlxbuild.yaml not found (REPO is an mlxbuild checkout)" >&2; exit 2; }
[ ! -e "$out" ] || { echo "make.sh: $out exists; give a new directory" >&2; exit 2; }
mkdir -p "$out/examples"
cp "$repo/mlxbuild.yaml" "$out/"
cp -r "$repo/examples/minimlx" "$out/examples/"
pristine=$out/examples/minimlx/mlx overlay=$out/examples/minimlx/patches-rocm
# One line per file: where it goes, its size, whether the library compiles it.
awk -F'\t' -v P="$pristine" -v O="$overlay" '
  { dest = ($1 ~ /^mlx\/backend\/rocm\//) ? O "/" $1 : P "/" $1
    lib = ($1 ~ /^mlx\/.*\.cpp$/ && $1 !~ /^mlx\/backend\/(cuda|metal|rocm)\//) ? 1 : 0
    print dest "\t" $2 "\t" lib "\t" $1 }' "$tsv" >"$out/.shape"
# Keep the example's own files (its CMake, its sources).
while IFS=$'\t' read -r dest size lib rel; do
  [ -e "$dest" ] || printf '%s\t%s\t%s\t%s\n' "$dest" "$size" "$lib" "$rel"
done <"$out/.shape" >"$out/.filler"
cut -f1 "$out/.filler" | xargs -d '\n' dirname | sort -u | xargs -d '\n' mkdir -p
awk -F'\t' '
  NR == FNR { if ($4 ~ /\.h$/) { d = $4; sub(/\/[^\/]*$/, "", d); hdr[d] = hdr[d] " " $4 } ; next }
  { body = ""
    if ($3 == 1) {
      d = $4; sub(/\/[^\/]*$/, "", d); n = split(hdr[d], hs, " ")
      for (i = 1; i <= n && i <= 8; i++) body = body "#include \"" hs[i] "\"\n"
      body = body "#include <vector>\n#include <string>\n#include <map>\n#include <memory>\n#include <functional>\n#include <unordered_map>\n#include <sstream>\n"
    }
    line = "// filler of the recorded size, no source of MLX\n"
    while (length(body) + length(line) <= $2) body = body line
    while (length(body) < $2) body = body " "
    printf "%s", body > $1; close($1) }' "$out/.filler" "$out/.filler"
{
  echo
  echo "# The real-tree shape (bench/realshape/make.sh): the filler sources."
  echo "target_sources(mlx PRIVATE"
  awk -F'\t' '$3 == 1 { print "  ${CMAKE_SOURCE_DIR}/" $4 }' "$out/.filler"
  echo ")"
} >>"$pristine/mlx/CMakeLists.txt"
rm "$out/.shape" "$out/.filler"
echo "make.sh: $(find "$pristine" "$overlay" -type f | wc -l) files in $out"
