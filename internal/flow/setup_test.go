package flow

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeApt puts a dpkg-query that knows no package and an apt-get that
// prints lines lines per call (as dpkg and debconf do on a fresh machine)
// and exits with status on PATH, with os-release for Debian 12, root, and
// TMPDIR in a temporary directory; it returns that directory and the file
// where apt-get records its arguments.
func fakeApt(t *testing.T, lines, status int) (tmp, calls string) {
	t.Helper()
	bin, tmp := t.TempDir(), t.TempDir()
	calls = filepath.Join(t.TempDir(), "calls")
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("dpkg-query", "#!/bin/sh\nexit 1\n")
	write("apt-get", `#!/bin/sh
echo "$*" >> `+calls+`
i=0
while [ $i -lt `+strconv.Itoa(lines)+` ]; do echo "Setting up package-$i ..."; i=$((i+1)); done
if [ "$1" = install ]; then
  echo "E: Unable to locate package cargo-web" >&2
  exit `+strconv.Itoa(status)+`
fi
`)
	rel := filepath.Join(t.TempDir(), "os-release")
	if err := os.WriteFile(rel, []byte("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old, oldRoot, oldLook := osReleasePath, isRoot, lookPath
	osReleasePath, isRoot = rel, func() bool { return true }
	lookPath = func(string) (string, error) { return debianCargo, nil }
	t.Cleanup(func() { osReleasePath, isRoot, lookPath = old, oldRoot, oldLook })
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("TMPDIR", tmp)
	return tmp, calls
}

func runSetup(t *testing.T) (string, error) {
	t.Helper()
	var stderr bytes.Buffer
	err := Setup(context.Background(), Options{Dir: t.TempDir(), Env: func(string) string { return "" }, Stdout: &bytes.Buffer{}, Stderr: &stderr})
	return stderr.String(), err
}

// TestSetupKeepsAptOutputInALog: apt's ~950 lines go to a log under
// TMPDIR; the screen gets the step naming the log and one line saying
// what was installed. Debian 12 gets Debian's current Rust (cargo-web,
// rustc-web) and make.
func TestSetupKeepsAptOutputInALog(t *testing.T) {
	tmp, calls := fakeApt(t, 950, 0)
	out, err := runSetup(t)
	if err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	if n := strings.Count(out, "\n"); n != 2 {
		t.Errorf("setup printed %d lines, want 2 (the step and what was installed):\n%s", n, out)
	}
	logs, _ := filepath.Glob(filepath.Join(tmp, "mlxbuild-setup-*.log"))
	if len(logs) != 1 {
		t.Fatalf("logs under TMPDIR: %v, want one", logs)
	}
	if !strings.Contains(out, "(its output: "+logs[0]+")") {
		t.Errorf("the step does not name the log %s:\n%s", logs[0], out)
	}
	want := len(SetupPackages) + 2
	if !strings.Contains(out, "done: installed "+strconv.Itoa(want)+" packages: cmake ") {
		t.Errorf("no one line of what was installed:\n%s", out)
	}
	log, _ := os.ReadFile(logs[0])
	if strings.Count(string(log), "Setting up package-") != 2*950 || !strings.Contains(string(log), "$ apt-get install -y -qq --no-install-recommends cmake") {
		t.Errorf("the log lacks apt's output:\n%.300s", log)
	}
	args, _ := os.ReadFile(calls)
	for _, pkg := range []string{" make ", " cargo-web rustc-web"} {
		if !strings.Contains(string(args), pkg) {
			t.Errorf("apt-get install was not asked for%s: %s", pkg, args)
		}
	}
	if strings.Contains(string(args), " cargo ") || strings.HasSuffix(strings.TrimSpace(string(args)), " cargo") {
		t.Errorf("Debian 12's own cargo (1.65, older than %s) was asked for: %s", MinRust, args)
	}
}

// TestSetupFailureNamesTheLog: a failed install says which step failed,
// where the whole output is, and how it ends; it does not pour apt's
// output on the screen.
func TestSetupFailureNamesTheLog(t *testing.T) {
	tmp, _ := fakeApt(t, 950, 100)
	out, err := runSetup(t)
	if err == nil {
		t.Fatal("setup succeeded with apt-get install failing")
	}
	logs, _ := filepath.Glob(filepath.Join(tmp, "mlxbuild-setup-*.log"))
	if len(logs) != 1 {
		t.Fatalf("logs under TMPDIR: %v, want one", logs)
	}
	msg := err.Error()
	if want := "apt-get install failed (exit status 100); its output is in " + logs[0] + "; it said:\n  E: Unable to locate package cargo-web"; msg != want {
		t.Errorf("error:\n%s\nwant the step, the log and apt's error:\n%s", msg, want)
	}
	if strings.Contains(out, "Setting up") {
		t.Errorf("apt's output reached the screen:\n%s", out)
	}
}

func TestRustPackages(t *testing.T) {
	for _, c := range []struct {
		rel  osRelease
		want string
	}{
		{osRelease{"ID": "debian", "VERSION_CODENAME": "bookworm"}, "cargo-web rustc-web"},
		{osRelease{"ID": "debian", "VERSION_CODENAME": "trixie"}, "cargo"},
		{osRelease{"ID": "ubuntu", "ID_LIKE": "debian", "VERSION_CODENAME": "noble"}, "cargo"},
	} {
		if got := strings.Join(rustPackages(c.rel), " "); got != c.want {
			t.Errorf("rustPackages(%v) = %s, want %s", c.rel, got, c.want)
		}
	}
}

// TestSetupWarnsOfAForeignCargo: a cargo on PATH that is not Debian's
// (rustup's under ~/.cargo/bin) is what the tests would use; setup says so.
func TestSetupWarnsOfAForeignCargo(t *testing.T) {
	var buf bytes.Buffer
	old := lookPath
	t.Cleanup(func() { lookPath = old })
	lookPath = func(string) (string, error) { return "/root/.cargo/bin/cargo", nil }
	warnForeignCargo(Options{Stderr: &buf, Env: func(string) string { return "" }}.printer())
	if !strings.Contains(buf.String(), "warning: cargo on PATH is /root/.cargo/bin/cargo, not Debian's /usr/bin/cargo") {
		t.Errorf("no warning:\n%s", buf.String())
	}
	buf.Reset()
	lookPath = func(string) (string, error) { return debianCargo, nil }
	warnForeignCargo(Options{Stderr: &buf, Env: func(string) string { return "" }}.printer())
	if buf.Len() != 0 {
		t.Errorf("warned about Debian's own cargo:\n%s", buf.String())
	}
}

// TestAptFailureWithoutStderr: when apt said nothing on stderr (or did not
// start), the error shows how the log ends.
func TestAptFailureWithoutStderr(t *testing.T) {
	log := filepath.Join(t.TempDir(), "apt.log")
	var body strings.Builder
	for i := range 40 {
		body.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	if err := os.WriteFile(log, []byte(body.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	msg := aptFailed("update", os.ErrDeadlineExceeded, log).Error()
	if !strings.HasPrefix(msg, "apt-get update failed (i/o timeout); its output is in "+log+", ending:\n  line 25\n") ||
		!strings.HasSuffix(msg, "\n  line 39") || strings.Count(msg, "\n") != aptLogTail {
		t.Errorf("error does not end with the log's last %d lines:\n%s", aptLogTail, msg)
	}
}
