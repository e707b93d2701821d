#!/bin/bash
# device-run.sh is the recorded CUDA end-to-end run of docs/gpu-runs.md, for
# a machine with an NVIDIA GPU, the CUDA toolkit, CMake, Ninja and a C++
# compiler but no Go. Build the two programs first, where Go is:
#   CGO_ENABLED=0 go run mage.go -compile ./bin/mlxbuild
#   CGO_ENABLED=0 go test -c -o bin/gpurun.test ./gpurun
# then run it from the repository root. Each command is printed with "$ "
# before its output and "[exit N]" after; the files go to $OUT.
set -u
OUT=${OUT:-$PWD/target/gpurun-out}
mkdir -p "$OUT"
# The lent H200 machine keeps cmake and ninja in a virtual environment.
[ -d /opt/torch/.venv/bin ] && export PATH=$PATH:/opt/torch/.venv/bin
export PATH=$PATH:${CUDA_HOME:-/usr/local/cuda}/bin
r() { echo "\$ $*"; "$@"; local rc=$?; echo "[exit $rc]"; return $rc; }
c=target/mlxbuild/cuda
{
	r date -u
	r nvidia-smi -L
	r nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv
	r nvcc --version
	r cmake --version
	r ninja --version
	r c++ --version
	r uname -srm
} >"$OUT/machine.txt" 2>&1
{
	r ./bin/mlxbuild arch:cuda
	r ./bin/mlxbuild build:cuda
	r cat $c/out/ldflags.txt
	r c++ -std=c++17 -DMLX_CONSUMER_CUDA -I $c/tree examples/cxx-consumer/main.cpp $(cat $c/out/ldflags.txt) -o target/consumer
	r env -u LD_LIBRARY_PATH ./target/consumer
	r readelf -d target/consumer
	r cuobjdump --list-elf $c/build/libmlx_cuda_kernels.a
	r ./bin/mlxbuild arch:check $c/build/libmlx_cuda_kernels.a
	r ./bin/mlxbuild verify:cuda
	r ./bin/mlxbuild build:cuda
} >"$OUT/run.txt" 2>&1
(cd gpurun && r ../bin/gpurun.test -test.v -test.count=1 -test.timeout=8m) >"$OUT/test.txt" 2>&1
cat "$OUT/machine.txt" "$OUT/run.txt" "$OUT/test.txt"
