package doctor

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestSystemRun(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	ctx := context.Background()
	out, _, err := System{}.Run(ctx, 5*time.Second, "sh", "-c", "echo hello")
	if err != nil || string(out) != "hello\n" {
		t.Errorf("echo: %q, %v", out, err)
	}
	if _, _, err := (System{}).Run(ctx, time.Second, "gpuscout-no-such-program"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing program: %v, want ErrNotFound", err)
	}
	start := time.Now()
	_, _, err = System{}.Run(ctx, 100*time.Millisecond, "sh", "-c", "sleep 10")
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("a hung program: %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a hung program held Run for %s", d)
	}
}

// probePython is a python3 to run the real probe script with; the test is
// skipped without one.
func probePython(t *testing.T) string {
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Skip("no python3")
	return ""
}

// TestTorchProbeScript runs the embedded probe in a real python3 against
// stand-ins for torch (testdata/faketorch113, brokentorch) and with no torch
// at all, and parses what it prints.
func TestTorchProbeScript(t *testing.T) {
	py := probePython(t)
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	tests := []struct {
		name, pythonpath string
		check            func(t *testing.T, p Python)
	}{
		{"no torch", "", func(t *testing.T, p Python) {
			if p.Torch != nil || !p.TorchMissing || p.Version == "" || p.Executable == "" {
				t.Errorf("got %+v", p)
			}
		}},
		{"torch 1.13 shape", abs("testdata/faketorch113"), func(t *testing.T, p Python) {
			tc := p.Torch
			if tc == nil || tc.Version != "1.13.1+cu117" || tc.CUDA != "11.7" || tc.HIP != "" || tc.CUDAAvailable ||
				tc.CuDNN != "8.5.0" || tc.NCCL != "2.14.3" || len(tc.CUDAWarnings) != 1 {
				t.Errorf("got %+v", tc)
			}
		}},
		{"import fails", abs("testdata/brokentorch"), func(t *testing.T, p Python) {
			if p.Torch != nil || p.TorchMissing || p.TorchError != "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory" {
				t.Errorf("got %+v", p)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.pythonpath == "" {
				tt.pythonpath = t.TempDir()
			}
			t.Setenv("PYTHONPATH", tt.pythonpath)
			t.Setenv("PYTHONDONTWRITEBYTECODE", "1") // no __pycache__ in testdata
			out, errOut, err := System{}.Run(context.Background(), 30*time.Second, py, "-S", "-c", torchProbe)
			if err != nil {
				t.Fatalf("%v: %s", err, errOut)
			}
			p, err := ParseTorchProbe(out)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, p)
		})
	}
}
