package dl

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

var (
	fakeOnce sync.Once
	fakeDir  string
	fakeErr  error
)

// fakeLibs builds testdata/fakelib.c once per run into a temporary folder:
// dir/full holds libcublas.so.13 (a symlink to libcublas.so.13.1.0) and
// libcublasLt.so.13; dir/nov2 a libcublas.so.13 built without fake_plain_v2.
func fakeLibs(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: the fake-library tests need it")
	}
	fakeOnce.Do(func() {
		fakeDir, fakeErr = os.MkdirTemp("", "gpuscout-dl-")
		if fakeErr != nil {
			return
		}
		build := func(out string, flags ...string) {
			if fakeErr != nil {
				return
			}
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				fakeErr = err
				return
			}
			args := append([]string{"-shared", "-fPIC", "-o", out, "testdata/fakelib.c"}, flags...)
			if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
				fakeErr = errors.New(string(b))
			}
		}
		build(filepath.Join(fakeDir, "full", "libcublas.so.13.1.0"), "-DMARKER=13")
		build(filepath.Join(fakeDir, "full", "libcublasLt.so.13"), "-DMARKER=7")
		build(filepath.Join(fakeDir, "nov2", "libcublas.so.13"), "-DMARKER=1", "-DNO_V2")
		if fakeErr == nil {
			fakeErr = os.Symlink("libcublas.so.13.1.0", filepath.Join(fakeDir, "full", "libcublas.so.13"))
		}
	})
	if fakeErr != nil {
		t.Fatalf("building fake libraries: %v", fakeErr)
	}
	return fakeDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fakeDir != "" {
		os.RemoveAll(fakeDir)
	}
	os.Exit(code)
}

func dirEnv(dirs ...string) Env {
	return Env{
		Getenv:        func(k string) string { return map[string]string{"LD_LIBRARY_PATH": strings.Join(dirs, ":")}[k] },
		NoLoaderNames: true,
		Arch:          "x86_64",
	}
}

func TestOpenFindsFileResolvesPathAndLoadsCompanion(t *testing.T) {
	dir := fakeLibs(t)
	missing := filepath.Join(dir, "absent")
	lib, err := OpenEnv(CUBLAS, dirEnv(missing, filepath.Join(dir, "full")))
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if want := filepath.Join(dir, "full", "libcublas.so.13.1.0"); lib.Path != want {
		t.Errorf("Path = %s, want the symlink resolved: %s", lib.Path, want)
	}
	if want := filepath.Join(dir, "full", "libcublas.so.13"); lib.Candidate != want {
		t.Errorf("Candidate = %s, want %s", lib.Candidate, want)
	}
	if want := []string{filepath.Join(dir, "full", "libcublasLt.so.13")}; !slices.Equal(lib.Companions, want) {
		t.Errorf("Companions = %q, want %q", lib.Companions, want)
	}
	// The absent folder's two sonames were tried first and recorded.
	if len(lib.Tried) != 2 || lib.Tried[0].Path != filepath.Join(missing, "libcublas.so.13") || lib.Tried[0].Err != notPresent {
		t.Errorf("Tried = %+v, want the two absent files first", lib.Tried)
	}
	var marker func() int32
	if _, err := lib.Bind([]Symbol{Sym(&marker, "fake_marker")}); err != nil {
		t.Fatal(err)
	}
	if got := marker(); got != 13 {
		t.Errorf("fake_marker() = %d, want 13 (the libcublas build, not the companion)", got)
	}
}

func TestOpenErrorListsAttempts(t *testing.T) {
	dir := fakeLibs(t)
	bad := filepath.Join(t.TempDir(), "libnccl.so.2")
	if err := os.WriteFile(bad, []byte("not an ELF file"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenEnv(NCCL, dirEnv(filepath.Dir(bad), filepath.Join(dir, "absent")))
	var oe *OpenError
	if !errors.As(err, &oe) || !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want an *OpenError matching ErrNotFound", err)
	}
	msg := err.Error()
	for _, want := range []string{"nccl: no library loaded", bad + ": ", "not present"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if _, err := OpenEnv(Lib("opencl"), Env{}); err == nil || !strings.Contains(err.Error(), `"opencl" is not one of nvml, cuda`) {
		t.Errorf("unknown lib: err = %v", err)
	}
}

func TestBindAlternatesAndMissing(t *testing.T) {
	dir := fakeLibs(t)
	tests := []struct {
		dir     string
		want    int32 // fake(10) through the preferred-first alternates
		bound   string
		missing string // required symbols reported missing
	}{
		{"full", 20, "fake_plain_v2", "fake_absent|fake_absent_v2"},
		{"nov2", 11, "fake_plain", "fake_absent|fake_absent_v2"},
	}
	for _, tt := range tests {
		lib, err := OpenEnv(CUBLAS, dirEnv(filepath.Join(dir, tt.dir)))
		if err != nil {
			t.Fatal(err)
		}
		var fake, absent, opt func(int32) int32
		b, err := lib.Bind([]Symbol{
			Sym(&fake, "fake_plain_v2", "fake_plain"),
			Sym(&absent, "fake_absent", "fake_absent_v2"),
			OptSym(&opt, "fake_optional"),
		})
		var me *MissingError
		if !errors.As(err, &me) || !slices.Equal(me.Missing, []string{tt.missing}) {
			t.Fatalf("%s: err = %v, want missing %s", tt.dir, err, tt.missing)
		}
		if !strings.Contains(err.Error(), "lacks required symbols: "+tt.missing) {
			t.Errorf("%s: error %q does not name the symbol", tt.dir, err)
		}
		if got := b.Names["fake_plain_v2"]; got != tt.bound {
			t.Errorf("%s: bound as %q, want %q", tt.dir, got, tt.bound)
		}
		if fake == nil {
			t.Fatalf("%s: found symbol not bound despite another missing", tt.dir)
		}
		if got := fake(10); got != tt.want {
			t.Errorf("%s: fake(10) = %d, want %d", tt.dir, got, tt.want)
		}
		if absent != nil || opt != nil {
			t.Errorf("%s: missing symbols bound", tt.dir)
		}
		if !slices.Equal(b.MissingOptional, []string{"fake_optional"}) {
			t.Errorf("%s: MissingOptional = %q", tt.dir, b.MissingOptional)
		}
		if lib.Has("fake_plain_v2") != (tt.dir == "full") {
			t.Errorf("%s: Has(fake_plain_v2) wrong", tt.dir)
		}
	}
}

func TestBindBadFunctionTypeIsAnError(t *testing.T) {
	dir := fakeLibs(t)
	lib, err := OpenEnv(CUBLAS, dirEnv(filepath.Join(dir, "full")))
	if err != nil {
		t.Fatal(err)
	}
	var notFunc int
	if _, err := lib.Bind([]Symbol{Sym(&notFunc, "fake_plain")}); err == nil || !strings.Contains(err.Error(), "binding fake_plain") {
		t.Errorf("err = %v, want a binding error naming the symbol", err)
	}
}

func TestOpenSkipsAStubReachedThroughASymlink(t *testing.T) {
	dir := fakeLibs(t)
	root := t.TempDir()
	stubs := filepath.Join(root, "stubs")
	lib := filepath.Join(root, "lib")
	for _, d := range []string{stubs, lib} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "nov2", "libcublas.so.13"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stubs, "libnccl.so.2"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(stubs, "libnccl.so.2"), filepath.Join(lib, "libnccl.so.2")); err != nil {
		t.Fatal(err)
	}
	_, err = OpenEnv(NCCL, dirEnv(lib))
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "is a link-time stub ("+filepath.Join(stubs, "libnccl.so.2")) {
		t.Errorf("err = %v, want the stub refused by name", err)
	}
}
