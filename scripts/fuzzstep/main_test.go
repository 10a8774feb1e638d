package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseBudget(t *testing.T) {
	tests := []struct {
		in      string
		want    Budget
		flag    string
		wantErr bool
	}{
		{"5000x", Budget{Count: 5000}, "5000x", false},
		{" 1x ", Budget{Count: 1}, "1x", false},
		{"3s", Budget{Duration: 3 * time.Second}, "3s", false},
		{"1m30s", Budget{Duration: 90 * time.Second}, "1m30s", false},
		{"0x", Budget{}, "", true},
		{"-5x", Budget{}, "", true},
		{"1000000001x", Budget{}, "", true},
		{"x", Budget{}, "", true},
		{"500ms", Budget{}, "", true},
		{"25h", Budget{}, "", true},
		{"3", Budget{}, "", true},
		{"", Budget{}, "", true},
	}
	for _, tc := range tests {
		got, err := ParseBudget("FUZZTIME", tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ParseBudget(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.wantErr)
			continue
		}
		if err != nil {
			if !strings.Contains(err.Error(), "FUZZTIME") || !strings.Contains(err.Error(), "1x to") {
				t.Errorf("ParseBudget(%q) error %q: want the name and the allowed range", tc.in, err)
			}
			continue
		}
		if got.Flag() != tc.flag || got.Timed() != (tc.want.Duration > 0) {
			t.Errorf("ParseBudget(%q): flag %q timed %v", tc.in, got.Flag(), got.Timed())
		}
	}
}

// TestDiscoverThisModule finds the project's own targets, as the step does:
// the ones the README names are there and nothing comes from testdata.
func TestDiscoverThisModule(t *testing.T) {
	targets, err := Discover("../..")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tg := range targets {
		names = append(names, tg.String())
		if strings.Contains(tg.Dir, "testdata") {
			t.Errorf("target from testdata: %s", tg)
		}
	}
	for _, want := range []string{"./internal/spot:FuzzParseTrace", "./internal/agent/rules:FuzzParseMatcher", "./internal/feeds/awsprices:FuzzParseBand", "./internal/cost:FuzzParseSpec"} {
		if !slices.Contains(names, want) {
			t.Errorf("Discover lacks %s; found %v", want, names)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("targets not sorted: %v", names)
	}
}

// planted writes a module with a target that passes, one that panics on
// some inputs, a method that looks like a target, and a target in testdata
// that must be ignored.
func planted(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod": "module planted\n\ngo 1.26\n",
		"p/p.go": "// Package p is a planted parser.\npackage p\n\n// Parse fails on some inputs.\nfunc Parse(b []byte) int {\n\tif len(b) > 2 && b[0] > 'x' {\n\t\tpanic(\"planted crasher\")\n\t}\n\treturn len(b)\n}\n",
		"p/p_test.go": `package p

import "testing"

func FuzzFine(f *testing.F) {
	f.Add([]byte("a"))
	f.Fuzz(func(t *testing.T, b []byte) {})
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("a"))
	f.Fuzz(func(t *testing.T, b []byte) { Parse(b) })
}

type helper struct{}

func (helper) FuzzMethod(f *testing.F) {}
`,
		"p/testdata/x/x_test.go": "package x\n\nimport \"testing\"\n\nfunc FuzzIgnored(f *testing.F) {}\n",
	}
	for name, body := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestDiscoverPlanted(t *testing.T) {
	targets, err := Discover(planted(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []Target{{"p", "FuzzFine"}, {"p", "FuzzParse"}}
	if !slices.Equal(targets, want) {
		t.Errorf("Discover = %v, want %v", targets, want)
	}
}

// TestPlantedCrasherFailsTheStep runs the real step on the planted module:
// the panicking target fails it and leaves its reproducer; the fine one
// alone passes.
func TestPlantedCrasherFailsTheStep(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	if testing.Short() {
		t.Skip("builds and fuzzes a module (-short)")
	}
	root := planted(t)
	var out, errOut strings.Builder
	code := Main(t.Context(), []string{"-budget", "20000x", root}, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), "panic: planted crasher") || !strings.Contains(errOut.String(), "FAIL  ./p:FuzzParse: finding, reproducer ") {
		t.Errorf("the finding is not reported:\n%s", errOut.String())
	}
	if !strings.Contains(out.String(), "ok    ./p:FuzzFine (20000x") || !strings.Contains(out.String(), "fuzz: 2 targets, 1 passed, 0 flaked, 1 failed") {
		t.Errorf("stdout:\n%s", out.String())
	}
	written, err := os.ReadDir(filepath.Join(root, "p", "testdata", "fuzz", "FuzzParse"))
	if err != nil || len(written) != 1 {
		t.Errorf("reproducer folder: %v, %v; want one file", written, err)
	}

	out.Reset()
	errOut.Reset()
	if code := Main(t.Context(), []string{"-budget", "2000x", "-run", `:FuzzFine$`, root}, &out, &errOut); code != 0 {
		t.Errorf("the fine target alone: exit %d, want 0\n%s%s", code, out.String(), errOut.String())
	}

	// A package that does not compile fails the step with the compiler's words.
	bad := filepath.Join(root, "q", "q_test.go")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("package q\n\nimport \"testing\"\n\nfunc FuzzQ(f *testing.F) { var n int = \"no\"; _ = n }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	if code := Main(t.Context(), []string{"-budget", "100x", "-run", `^./q:`, root}, &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), `cannot use "no"`) || !strings.Contains(errOut.String(), "FAIL  ./q:FuzzQ: broken") {
		t.Errorf("a package that does not build: exit %d\n%s%s", code, out.String(), errOut.String())
	}
}

// -tests runs each fuzzed package's tests with its fuzz binary: a failing
// test fails the step even when every target passes; -list names the
// packages.
func TestTestsFlagRunsThePackagesTests(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	if testing.Short() {
		t.Skip("builds a module (-short)")
	}
	root := planted(t)
	failing := filepath.Join(root, "p", "plain_test.go")
	if err := os.WriteFile(failing, []byte("package p\n\nimport \"testing\"\n\nfunc TestPlanted(t *testing.T) { t.Fatal(\"planted test failure\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	if code := Main(t.Context(), []string{"-list", root}, &out, &errOut); code != 0 || out.String() != "./p\n" {
		t.Errorf("-list: exit %d, %q", code, out.String())
	}
	out.Reset()
	code := Main(t.Context(), []string{"-budget", "100x", "-tests", "-run", `:FuzzFine$`, root}, &out, &errOut)
	if code != 1 || !strings.Contains(out.String(), "FAIL  ./p (tests") || !strings.Contains(errOut.String(), "planted test failure") {
		t.Errorf("a failing test: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if err := os.Remove(failing); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	if code := Main(t.Context(), []string{"-budget", "100x", "-tests", "-run", `:FuzzFine$`, root}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "ok    ./p (tests") {
		t.Errorf("passing tests: exit %d\n%s%s", code, out.String(), errOut.String())
	}
}

func TestMainBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-budget", "3"},
		{"-budget", "0x"},
		{"-jobs", "0"},
		{"-minimize", "banana"},
		{"-run", "("},
		{"a", "b"},
	} {
		var out, errOut strings.Builder
		if code := Main(t.Context(), args, &out, &errOut); code != 2 {
			t.Errorf("Main(%q) = %d, want 2 (%s)", args, code, errOut.String())
		}
	}
}
