#!/usr/bin/env bash
# noop-remeasure.sh BUILD_DIR TREE BACKEND BINARY [RUNS] [BASE_BINARY]
#
# The no-op figures of issue 28 on one built tree, with only bash,
# coreutils, findutils and Ninja (no Go: the H200 has none). Run it from the
# project's directory (where `BINARY build:BACKEND` finds its mlxbuild.yaml),
# with the environment the build had (MLXBUILD_CACHE, the architectures).
# Each round runs, one after another: `ninja -C BUILD_DIR`, `BINARY
# build:BACKEND`, `BINARY overlay:apply BACKEND`, `find TREE | wc -l`,
# `BINARY -l` (the floor: the binary's start, its package inits and its exit,
# listing its targets and doing nothing else), and
# with BASE_BINARY its build and apply too, so load hits all alike. It
# checks that each really was a no-op, then prints each one's median and
# range in ms over RUNS rounds (default 21), the median CPU time, and the
# ratios the issue asks: build against bare Ninja (goal <= 1.3), apply
# against find (goal <= 1.0); with BASE_BINARY, also new against base.
# BASE_BINARY must keep the same no-work record form (mlxbuild-nowork's first
# line): a binary that rejects the other's record remakes it on every run.
# Across forms, run the script once per binary, one after another.
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,17p' "$0" >&2; exit 2; }
build=$1 tree=$2 backend=$3 bin=$4 runs=${5:-21} base=${6:-}
for d in "$build" "$tree"; do [ -d "$d" ] || { echo "noop-remeasure: $d is not a directory" >&2; exit 2; }; done
[ -x "$bin" ] || { echo "noop-remeasure: $bin is not executable" >&2; exit 2; }
[ -z "$base" ] || [ -x "$base" ] || { echo "noop-remeasure: $base is not executable" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

names=(ninja build apply find floor)
cmds=("ninja -C $build" "$bin build:$backend" "$bin overlay:apply $backend" "find $tree" "$bin -l")
[ -z "$base" ] || { names+=(base-build base-apply); cmds+=("$base build:$backend" "$base overlay:apply $backend"); }

# run NAME: one timed run; the output must say the run was a no-op. Its
# wall time goes to $out/NAME and its CPU time (user and system of every
# process it started, all threads; less hit by load than the wall time) to
# $out/NAME.cpu, in microseconds.
run() {
  local t0 t1 o want="is up to date"
  t0=$(date +%s%N)
  case $1 in
  ninja) o=$(ninja -C "$build" 2>&1; times); want="no work to do" ;;
  build) o=$("$bin" "build:$backend" 2>&1; times) ;;
  base-build) o=$("$base" "build:$backend" 2>&1; times) ;;
  apply) o=$("$bin" overlay:apply "$backend" 2>&1; times); want=" 0 written" ;;
  base-apply) o=$("$base" overlay:apply "$backend" 2>&1; times); want=" 0 written" ;;
  find) o=$(find "$tree" | wc -l; times); want="" ;;
  floor) o=$("$bin" -l 2>&1; times); want="build:$backend" ;;
  esac
  t1=$(date +%s%N)
  if [ -n "$want" ] && [[ $o != *"$want"* ]]; then
    echo "noop-remeasure: $1 was not a no-op:" >&2
    echo "$o" >&2
    exit 1
  fi
  echo $(((t1 - t0) / 1000)) >>"$out/$1"
  # times' last line: the children's user and system time, "0m0.012s 0m0.004s".
  echo "${o##*$'\n'}" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d\n", ((u[1] + s[1]) * 60 + u[2] + s[2]) * 1000000 }' >>"$out/$1.cpu"
}

# A warm-up round (page cache, the no-work record), not counted.
for n in "${names[@]}"; do run "$n"; rm -f "$out/$n" "$out/$n.cpu"; done
for ((i = 0; i < runs; i++)); do
  for n in "${names[@]}"; do run "$n"; done
done

# median NAME: the middle value in microseconds (the mean of the two
# middle ones for an even count).
median() {
  sort -n "$out/$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $runs rounds"
declare -A med cpu
for n in "${names[@]}"; do
  med[$n]=$(median "$n")
  cpu[$n]=$(median "$n.cpu")
  lo=$(sort -n "$out/$n" | head -1) hi=$(sort -n "$out/$n" | tail -1)
  printf '%-11s median %7s ms  range %s-%s  cpu %s ms  (%s)\n' "$n" "$(ms "${med[$n]}")" "$(ms "$lo")" "$(ms "$hi")" "$(ms "${cpu[$n]}")" "${cmds[$(printf '%s\n' "${names[@]}" | grep -nx -- "$n" | cut -d: -f1) - 1]}"
done
echo "build/ninja  $(ratio "${med[build]}" "${med[ninja]}")  cpu $(ratio "${cpu[build]}" "${cpu[ninja]}")   (goal <= 1.3)"
echo "apply/find   $(ratio "${med[apply]}" "${med[find]}")  cpu $(ratio "${cpu[apply]}" "${cpu[find]}")   (goal <= 1.0)"
# What apply and build cost beyond the floor, which no work of theirs can go under.
echo "floor/find   $(ratio "${med[floor]}" "${med[find]}")  cpu $(ratio "${cpu[floor]}" "${cpu[find]}")"
echo "apply-floor  $(ms $((med[apply] - med[floor]))) ms   build-floor $(ms $((med[build] - med[floor]))) ms"
if [ -n "$base" ]; then
  echo "base-build/ninja $(ratio "${med[base-build]}" "${med[ninja]}")  cpu $(ratio "${cpu[base-build]}" "${cpu[ninja]}")"
  echo "base-apply/find  $(ratio "${med[base-apply]}" "${med[find]}")  cpu $(ratio "${cpu[base-apply]}" "${cpu[find]}")"
  echo "build/base-build $(ratio "${med[build]}" "${med[base-build]}")  cpu $(ratio "${cpu[build]}" "${cpu[base-build]}")"
  echo "apply/base-apply $(ratio "${med[apply]}" "${med[base-apply]}")  cpu $(ratio "${cpu[apply]}" "${cpu[base-apply]}")"
fi
