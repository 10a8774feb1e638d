// Package shareddata locates the project's shared source data (../shared/data
// beside the repository) for tests that check parsed results against the
// original rows. Tests skip, with a message, where the folder is absent.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the shared/data folder: $GPUSCOUT_SHARED_DATA if set, else
// ../shared/data beside the module root. It skips the test when neither exists.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("GPUSCOUT_SHARED_DATA"); d != "" {
		return d
	}
	if d, ok := Find(); ok {
		return d
	}
	t.Skip("shared/data not found beside the repository (set GPUSCOUT_SHARED_DATA); skipping the check against the source rows")
	return ""
}

// Find looks for ../shared/data beside the module root above the working directory.
func Find() (string, bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			s := filepath.Join(filepath.Dir(d), "shared", "data")
			if fi, err := os.Stat(s); err == nil && fi.IsDir() {
				return s, true
			}
			return "", false
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// ModuleRoot returns the folder holding go.mod above the working directory.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatal("go.mod not found above the working directory")
		}
	}
}

// Open opens a file under shared/data (path parts joined), closing it when
// the test ends; it skips the test where shared/data is absent.
func Open(t testing.TB, parts ...string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join(append([]string{Dir(t)}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
