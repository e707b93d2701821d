#!/bin/bash
# cuda-limits.sh is the recorded run of CUDA's own limits (issue 44) on a
# machine with the CUDA toolkit and no Go. Build the programs first, where
# Go is:
#   CGO_ENABLED=0 go run mage.go -compile ./bin/mlxbuild
#   CGO_ENABLED=0 go test -c -o bin/backends.test ./backends
# then run it from the repository root. Each command is printed with "$ "
# before its output and "[exit N]" after.
set -u
[ -d /opt/torch/.venv/bin ] && export PATH=$PATH:/opt/torch/.venv/bin
export PATH=$PATH:${CUDA_HOME:-/usr/local/cuda}/bin
r() { echo "\$ $*"; "$@"; local rc=$?; echo "[exit $rc]"; return 0; }
# A g++ that says it is GCC 99: the real one, __GNUC__ redefined, so nvcc's
# crt/host_config.h refuses it as it would a g++ newer than it knows.
gcc99=$PWD/target/g++-99
mkdir -p target
printf '#!/bin/sh\nexec %s -U__GNUC__ -D__GNUC__=99 "$@"\n' "$(command -v g++)" >"$gcc99"
chmod +x "$gcc99"
r date -u
r nvcc --version
r nvcc --list-gpu-code
r nvcc --list-gpu-arch
r g++ --version
r bin/backends.test -test.v -test.count=1 -test.run 'CUDALimitsReal|LocateCUDAReal'
r env MLX_CUDA_ARCHITECTURES='70;90a' ./bin/mlxbuild plan:cuda
r env MLX_CUDA_ARCHITECTURES='70;90a' ./bin/mlxbuild build:cuda
r env MLX_CUDA_ARCHITECTURES='121a-real;121' CUDAHOSTCXX="$gcc99" ./bin/mlxbuild build:cuda
r env MLX_CUDA_ARCHITECTURES='70' CUDAHOSTCXX="$gcc99" ./bin/mlxbuild doctor -backend=cuda
r env MLX_CUDA_ARCHITECTURES='121a-real;121' ./bin/mlxbuild plan:cuda
r ./bin/mlxbuild doctor -backend=cuda
r ls target/mlxbuild/cuda/build/CMakeCache.txt
