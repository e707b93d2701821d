package multiarch

import (
	"debug/elf"
	"runtime"
	"testing"
)

func TestFor(t *testing.T) {
	for _, tt := range []struct{ goarch, want string }{
		{"amd64", "x86_64-linux-gnu"},
		{"arm64", "aarch64-linux-gnu"},
		{"ppc64le", "powerpc64le-linux-gnu"},
		{"arm", "arm-linux-gnueabihf"},
		{"wasm", "wasm-linux-gnu"},
	} {
		if got := For(tt.goarch); got != tt.want {
			t.Errorf("For(%q) = %q, want %q", tt.goarch, got, tt.want)
		}
	}
	if Host() != For(runtime.GOARCH) {
		t.Errorf("Host() = %q, want For(%q)", Host(), runtime.GOARCH)
	}
}

func TestForELF(t *testing.T) {
	for _, tt := range []struct {
		m    elf.Machine
		want string
		ok   bool
	}{
		{elf.EM_X86_64, "x86_64-linux-gnu", true},
		{elf.EM_AARCH64, "aarch64-linux-gnu", true},
		{elf.EM_SPARCV9, "", false},
	} {
		if got, ok := ForELF(tt.m); got != tt.want || ok != tt.ok {
			t.Errorf("ForELF(%v) = %q, %v; want %q, %v", tt.m, got, ok, tt.want, tt.ok)
		}
	}
}
