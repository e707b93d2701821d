package cmake

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	imemo "github.com/mlxbuild/mlxbuild/internal/memo"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// BenchmarkReadCXXStandard times what every build's link plan asks of
// CMake's code model, alternating in one loop: the memo's answer (every
// no-op after the first) and decoding the reply files (what every no-op
// did before, and the first build after a generate does). The library has 160 sources in 40 folders,
// each folder adding its own with an include directory and a define, as
// real MLX's CMake does (its library target's reply is of that size).
// Reported: each side's ms/op, memo/decode and the target reply's size.
//
//	go test ./internal/cmake -run '^$' -bench ReadCXXStandard -benchtime 200x -count 3
func BenchmarkReadCXXStandard(b *testing.B) {
	testutil.NeedTools(b, "cmake", "ninja", "c++")
	src := b.TempDir()
	var top strings.Builder
	top.WriteString("cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX)\nset(CMAKE_CXX_STANDARD 20)\nadd_library(mlx STATIC)\n")
	for d := 0; d < 40; d++ {
		dir := fmt.Sprintf("mlx/part%02d", d)
		var lists strings.Builder
		fmt.Fprintf(&lists, "target_include_directories(mlx PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/include)\ntarget_compile_definitions(mlx PRIVATE PART%02d=1)\ntarget_sources(mlx PRIVATE", d)
		for s := 0; s < 4; s++ {
			name := fmt.Sprintf("s%d.cpp", s)
			testutil.WriteFile(b, filepath.Join(src, dir, name), fmt.Sprintf("int part%02d_%d() { return %d; }\n", d, s, s))
			lists.WriteString("\n  ${CMAKE_CURRENT_SOURCE_DIR}/" + name)
		}
		lists.WriteString(")\n")
		testutil.WriteFile(b, filepath.Join(src, dir, "CMakeLists.txt"), lists.String())
		fmt.Fprintf(&top, "add_subdirectory(%s)\n", dir)
	}
	testutil.WriteFile(b, filepath.Join(src, "CMakeLists.txt"), top.String())
	build := filepath.Join(b.TempDir(), "build")
	if err := Configure(context.Background(), ConfigureOptions{Source: src, Build: build}); err != nil {
		b.Fatal(err)
	}
	targets, _ := filepath.Glob(filepath.Join(fileAPIDir(build), "reply", "target-mlx-*.json"))
	if len(targets) != 1 {
		b.Fatalf("no reply for target mlx: %v", targets)
	}
	st, err := os.Stat(targets[0])
	if err != nil {
		b.Fatal(err)
	}
	memo := filepath.Join(build, stdMemoFile)
	read := func() {
		if std, err := ReadCXXStandard(build, []string{"mlx"}); err != nil || std.Std != "c++20" {
			b.Fatalf("%+v, %v", std, err)
		}
	}
	read() // the memo
	reply := filepath.Join(fileAPIDir(build), "reply")
	data, err := os.ReadFile(memo)
	if err != nil {
		b.Fatal(err)
	}
	m, ok := imemo.Parse(stdMemoKind, data)
	if !ok {
		b.Fatalf("memo %q", data)
	}
	indexPath, _ := imemo.KeyPath(m.Files[0])
	index := filepath.Base(indexPath)
	var decode, remembered time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		read()
		remembered += time.Since(t)
		t = time.Now()
		if std, keys, err := decodeCXXStandard(reply, index, []string{"mlx"}); err != nil || std.Std != "c++20" || len(keys) != 3 {
			b.Fatalf("decoding: %+v, %v, %v", std, keys, err)
		}
		decode += time.Since(t)
	}
	n := float64(b.N)
	b.ReportMetric(float64(decode.Microseconds())/1000/n, "decode-ms/op")
	b.ReportMetric(float64(remembered.Microseconds())/1000/n, "memo-ms/op")
	b.ReportMetric(float64(remembered)/float64(decode), "memo/decode")
	b.ReportMetric(float64(st.Size())/1024, "target-reply-KiB")
}
