package cli

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// dirNames lists a folder's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// A write that fails half way leaves the old file whole and nothing else.
func TestOutputFileFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	if err := os.WriteFile(path, []byte("old and good\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := writeOutputFile("--out", path, func(w io.Writer) error {
		if _, err := io.WriteString(w, "{\"half\": "); err != nil {
			return err
		}
		return errors.New("disk full")
	})
	if err == nil || !strings.Contains(err.Error(), "--out") || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v, want the flag and the cause", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old and good\n" {
		t.Fatalf("old file now %q", b)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"report.json"}) {
		t.Fatalf("folder holds %v, want only report.json", got)
	}
}

// A set of files (a Markdown report and its charts) is written whole or not
// at all: a failure on the last leaves none of the new ones.
func TestOutputFilesAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	o := outputFiles{flag: "--report"}
	defer o.discard()
	if err := o.add(filepath.Join(dir, "a-chart.svg"), writeBytes([]byte("<svg/>"))); err != nil {
		t.Fatal(err)
	}
	if err := o.add(filepath.Join(dir, "a.md"), func(io.Writer) error { return errors.New("boom") }); err == nil {
		t.Fatal("want the write's error")
	}
	o.discard()
	if got := dirNames(t, dir); len(got) != 0 {
		t.Fatalf("folder holds %v after a failed set, want nothing", got)
	}
	// The same set written whole lands both files.
	o = outputFiles{flag: "--report"}
	for _, n := range []string{"a-chart.svg", "a.md"} {
		if err := o.add(filepath.Join(dir, n), writeBytes([]byte(n))); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.commit(); err != nil {
		t.Fatal(err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"a-chart.svg", "a.md"}) {
		t.Fatalf("folder holds %v", got)
	}
}

// A symbolic link at the path is replaced by the new file; its target is
// never written through.
func TestOutputFileReplacesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "chart.svg")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := writeOutputFile("--chart", link, writeBytes([]byte("<svg/>"))); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Fatalf("the link's target was written: %q", b)
	}
	st, err := os.Lstat(link)
	if err != nil || st.Mode()&os.ModeSymlink != 0 {
		t.Fatalf("chart.svg is still a link (%v)", err)
	}
	if b, _ := os.ReadFile(link); string(b) != "<svg/>" {
		t.Fatalf("chart.svg = %q", b)
	}
}

// A path that is a folder, or in a folder that does not exist, is a usage
// error: exit 2, naming the flag and the path.
func TestOutputPathErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	asDir := filepath.Join(dir, "plan.html")
	if err := os.Mkdir(asDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--report", asDir}, "is a folder"},
		{[]string{"cost", "--gpu", "A100:8", "--for", "7d", "--chart", filepath.Join(dir, "cost.svg", "x.svg")}, "--chart"},
		{[]string{"rules", "export", "--tests", filepath.Join(dir, "no", "such", "t.yml")}, "--tests"},
	} {
		_, errb, code := run(t, tc.args...)
		if code != 2 || !strings.Contains(errb, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errb, tc.want)
		}
	}
}

// Under a file-size limit (a full disk, as ulimit -f makes it), a report or
// chart that cannot be written exits 1 and leaves the old file whole and no
// partial, temporary or chart file behind.
func TestOutputFilesUnderFileSizeLimit(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash for ulimit")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		file string
		args []string
	}{
		{"html report", "plan.html", []string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--report"}},
		{"markdown report", "plan.md", []string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--report"}},
		{"cost chart", "cost.svg", []string{"cost", "--gpu", "A100:8", "--for", "30d", "--horizon", "1y", "--chart"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tc.file)
			if err := os.WriteFile(path, []byte("the previous good file"), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append(append([]string{"-c", `ulimit -f 2; exec "$0" "$@"`, self}, tc.args...), path)
			cmd := exec.Command("bash", args...)
			cmd.Env = append(os.Environ(), "GPUSCOUT_CLI_TEST_MAIN=1")
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("exit %v, want 1; output:\n%s", err, out)
			}
			if !strings.Contains(string(out), "file too large") {
				t.Errorf("output does not say why:\n%s", out)
			}
			if b, _ := os.ReadFile(path); string(b) != "the previous good file" {
				t.Errorf("%s now holds %d bytes, want the old file", tc.file, len(b))
			}
			if got := dirNames(t, dir); !slices.Equal(got, []string{tc.file}) {
				t.Errorf("folder holds %v, want only %s", got, tc.file)
			}
		})
	}
}
