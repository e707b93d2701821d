package overlays

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPristineRefusesCommandURLs: a source.git that git would run as a
// command (an ext:: URL, allowed by a careless ~/.gitconfig; an option) is
// refused before git sees it, and the command never runs.
func TestPristineRefusesCommandURLs(t *testing.T) {
	_, first, _ := gitRepo(t)
	home := t.TempDir()
	writeFiles(t, home, files{".gitconfig": "[protocol]\n\tallow = always\n"})
	t.Setenv("HOME", home)
	m := filepath.Join(t.TempDir(), "MARKER")
	for _, url := range []string{
		"ext::sh -c touch% " + m + " x@y",
		"--upload-pack=touch " + m + " #@",
	} {
		_, err := Pristine(context.Background(), t.TempDir(), Source{Git: url, Pin: first})
		if _, serr := os.Stat(m); serr == nil {
			t.Fatalf("source.git %q ran its command (err: %v)", url, err)
		}
		if err == nil || !strings.Contains(err.Error(), "source.git") {
			t.Errorf("source.git %q: want an error naming source.git, got %v", url, err)
		}
	}
}
