package backends

import (
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

func TestTool(t *testing.T) {
	min := map[string]string{"cmake": "3.21", "ninja": "1.10", "git": "2.20"}
	for name, least := range min {
		testutil.NeedTools(t, name)
		path, v, err := Tool(name)
		if err != nil {
			t.Fatal(err)
		}
		if path == "" || v.LessThan(mustVersion(t, least)) {
			t.Errorf("%s: %s %s, want at least %s", name, path, v, least)
		}
	}
	_, _, err := Tool("mlxbuild-no-such-tool")
	if err == nil || !strings.Contains(err.Error(), "not on PATH") || !strings.Contains(err.Error(), "apt-get install") {
		t.Errorf("missing tool: %v", err)
	}
}
