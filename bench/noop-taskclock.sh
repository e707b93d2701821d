#!/usr/bin/env bash
# noop-taskclock.sh ROUNDS TARGET NAME=WRAPPER...
#
# The interleaved task-clock loop of docs/benchmarks.md (issue 42): each
# round runs every WRAPPER once with TARGET as its argument (the order
# rotated per round, so none always runs first), under `perf stat -e
# task-clock` (the CPU of the whole process tree, Ninja included); then
# prints each one's median task-clock and the median over rounds of the
# per-round difference against the first one named. A WRAPPER is a binary,
# or a static wrapper that sets one tree copy's MLXBUILD_CACHE and
# MLXBUILD_CONFIG and execs a binary (docs/benchmarks.md, "Where the
# no-op's extra CPU went" gives wrap.c), so binaries whose no-work records
# differ each keep their own copy. Each must already be a no-op there.
# Example:
#   MLX_ROCM_ARCHITECTURES=gfx1030 NO_COLOR=1 \
#     bash bench/noop-taskclock.sh 101 build:rocm old=/tmp/wrs-old new=/tmp/wrs-new
set -euo pipefail
rounds=$1 target=$2; shift 2
names=(); bins=()
for a in "$@"; do names+=("${a%%=*}"); bins+=("${a#*=}"); done
out=$(mktemp -d)
n=${#bins[@]}
for r in $(seq "$rounds"); do
  for k in $(seq 0 $((n-1))); do
    i=$(( (k + r) % n ))
    perf stat -x, -e task-clock -o "$out/stat" -- ${bins[$i]} $target >/dev/null 2>&1
    awk -F, '/task-clock/{print $1}' "$out/stat" >> "$out/${names[$i]}"
  done
done
for i in $(seq 0 $((n-1))); do
  med=$(sort -n "$out/${names[$i]}" | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  if [ "$i" -gt 0 ]; then
    d=$(paste "$out/${names[$i]}" "$out/${names[0]}" | awk '{print $1-$2}' | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
    printf '%-8s task-clock median %.2f ms  per-round diff vs %s median %+.2f ms\n' "${names[$i]}" "$med" "${names[0]}" "$d"
  else
    printf '%-8s task-clock median %.2f ms\n' "${names[$i]}" "$med"
  fi
done
rm -rf "$out"
