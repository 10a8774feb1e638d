package doctor

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	// Waiting for the program would take 120 s; being killed at the 100 ms
	// timeout takes milliseconds, so 30 s tells them apart on any machine.
	_, _, err = System{}.Run(ctx, 100*time.Millisecond, "sh", "-c", "sleep 120")
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("a hung program: %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 30*time.Second {
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

// TestTorchProbeRealTorch runs the probe against the real PyTorch of
// /usr/bin/python3 (Debian's python3-torch 1.13, which scripts/test.sh
// installs and then sets GPUSCOUT_REQUIRE_TORCH=1): it must report the
// build. `import torch` takes seconds, so without that variable it skips.
func TestTorchProbeRealTorch(t *testing.T) {
	const py = "/usr/bin/python3"
	if os.Getenv("GPUSCOUT_REQUIRE_TORCH") != "1" {
		t.Skip("GPUSCOUT_REQUIRE_TORCH is not 1: the real-PyTorch probe runs in scripts/test.sh")
	}
	if _, err := exec.LookPath(py); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	out, errOut, err := System{}.Run(context.Background(), pythonTimeout, py, "-c", torchProbe)
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	p, err := ParseTorchProbe(out)
	if err != nil {
		t.Fatal(err)
	}
	if p.Torch == nil {
		t.Fatalf("GPUSCOUT_REQUIRE_TORCH=1 but the probe found no torch: %s", p.TorchError)
	}
	tc := p.Torch
	if !regexp.MustCompile(`^\d+\.\d+`).MatchString(tc.Version) { // "1.13.0a0", "2.11.0+cu130"
		t.Errorf("torch version %q", tc.Version)
	}
	if tc.CUDA == "" && (tc.CUDAAvailable || tc.DeviceCount > 0) {
		t.Errorf("a CPU-only build that sees GPUs: %+v", tc)
	}
	if tc.CUDAAvailable != (tc.DeviceCount > 0) || len(tc.Devices) != tc.DeviceCount {
		t.Errorf("devices disagree: %+v", tc)
	}
}
