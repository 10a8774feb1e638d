// Package dltest builds the fake vendor libraries the gpu packages' tests
// load: C files in a package's testdata, compiled with gcc into a temporary
// folder once per test run, and an environment that makes dl find them
// there and nowhere else. A test skips, saying why, where gcc is missing.
package dltest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gpuscout/gpuscout/internal/gpu/dl"
)

var (
	mu    sync.Mutex
	root  string
	built = map[string]result{}
)

type result struct {
	dir string
	err error
}

// Build compiles src (a C file) with flags into a shared library named name
// (libnvidia-ml.so.1) in a folder of its own, once per distinct arguments in
// this test process, and returns the folder. It skips the test when gcc is
// absent and fails it when the build fails.
func Build(t testing.TB, src, name string, flags ...string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found: the fake-library tests need it to build testdata/*.c")
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	key := abs + "\x00" + name + "\x00" + strings.Join(flags, "\x00")
	mu.Lock()
	defer mu.Unlock()
	if r, ok := built[key]; ok {
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.dir
	}
	if root == "" {
		if root, err = os.MkdirTemp("", "gpuscout-fakelibs-"); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(root, fmt.Sprintf("%d", len(built)))
	r := result{dir: dir}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.err = err
	} else {
		// -Bsymbolic: a build variant loaded beside another calls its own
		// functions, not the first-loaded copy's.
		args := append([]string{"-shared", "-fPIC", "-O0", "-Wall", "-Wl,-Bsymbolic", "-o", filepath.Join(dir, name), abs}, flags...)
		args = append(args, "-lpthread")
		if out, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
			r.err = fmt.Errorf("gcc %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	built[key] = r
	if r.err != nil {
		t.Fatal(r.err)
	}
	return dir
}

// Cleanup removes the built libraries; call it from TestMain after m.Run.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if root != "" {
		os.RemoveAll(root)
	}
}

// Main is a TestMain for a package whose tests build fake libraries: it
// runs the tests, removes what they built (Cleanup) and exits with their
// code.
func Main(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// Env makes dl search only dirs: never the loader's own names nor the
// system's folders, where a real library may be.
func Env(dirs ...string) dl.Env {
	return dl.Env{Dirs: append([]string{}, dirs...), NoLoaderNames: true}
}
