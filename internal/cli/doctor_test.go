package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/doctor"
)

// h200Doctor is the recorded H200 node (shared/data/gpu/h200-2026-11-30):
// its nvidia-smi XML, the libraries its probe loaded and PyTorch 2.11.0+cu130
// in a venv.
func h200Doctor(t *testing.T) *doctor.Fake {
	t.Helper()
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	wheel := "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/"
	toolkit := "/usr/local/cuda-13.0/targets/x86_64-linux/lib/"
	return &doctor.Fake{
		Files: []string{
			"/dev/nvidia0", "/dev/nvidiactl",
			"/usr/local/nvidia/lib64/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.580.159.04",
			toolkit + "libcublas.so.13", toolkit + "libcublas.so.13.1.0.3", toolkit + "libcublasLt.so.13", toolkit + "libcublasLt.so.13.1.0.3",
			wheel + "libcublas.so.13", wheel + "libcublasLt.so.13", wheel + "libcudart.so.13", wheel + "libnccl.so.2",
			"/opt/torch/.venv/bin/python3", "/opt/torch/.venv/lib/python3.12/site-packages/torch/__init__.py",
		},
		Env:  map[string]string{"VIRTUAL_ENV": "/opt/torch/.venv", "LD_LIBRARY_PATH": "/usr/local/nvidia/lib64"},
		Path: map[string]string{"nvidia-smi": "/usr/bin/nvidia-smi", "python3": "/opt/torch/.venv/bin/python3"},
		Outputs: map[string]doctor.FakeOutput{
			"nvidia-smi": {Stdout: read("../../../shared/data/gpu/h200-2026-11-30/nvidia-smi-q.xml")},
			"python3":    {Stdout: read("../doctor/testdata/probe-h200-cu130.json")},
		},
		HomeDir: "/home/ubuntu",
		// what the recorded probe loaded, and the versions reported
		// (gpuprobe.jsonl: cuDriverGetVersion 13000, cublasGetVersion 13.1.0)
		Libraries: map[string]doctor.FakeLibrary{
			"cuda":   {Path: "/usr/local/nvidia/lib64/libcuda.so.580.159.04", Version: "13.0"},
			"cublas": {Path: toolkit + "libcublas.so.13.1.0.3", Version: "13.1.0"},
		},
	}
}

func withDoctor(t *testing.T, f *doctor.Fake) {
	t.Helper()
	old := doctorEnv
	doctorEnv = func() doctor.Env { return f }
	t.Cleanup(func() { doctorEnv = old })
}

func TestDoctorGolden(t *testing.T) {
	cpuOnly := func(t *testing.T) *doctor.Fake {
		f := h200Doctor(t)
		o := f.Outputs["python3"]
		o.Stdout = strings.NewReplacer(`"2.11.0+cu130"`, `"2.11.0+cpu"`, `"cuda": "13.0"`, `"cuda": null`,
			`"cuda_available": true`, `"cuda_available": false`, `"device_count": 1`, `"device_count": 0`).Replace(o.Stdout)
		f.Outputs["python3"] = o
		editXML(f, "<persistence_mode>Enabled</persistence_mode>", "<persistence_mode>Disabled</persistence_mode>")
		return f
	}
	noGPU := func(t *testing.T) *doctor.Fake {
		b, err := os.ReadFile("../doctor/testdata/probe-no-torch.json")
		if err != nil {
			t.Fatal(err)
		}
		return &doctor.Fake{
			Files:   []string{"/usr/bin/python3"},
			Path:    map[string]string{"python3": "/usr/bin/python3"},
			Outputs: map[string]doctor.FakeOutput{"python3": {Stdout: string(b)}},
		}
	}
	for _, tc := range []struct {
		name     string
		machine  func(t *testing.T) *doctor.Fake
		args     []string
		code     int
		stderrIn string
	}{
		{"doctor-h200.txt", h200Doctor, []string{"doctor"}, ExitOK, ""},
		{"doctor-h200.json", h200Doctor, []string{"doctor", "-o", "json"}, ExitOK, ""},
		{"doctor-cpu-torch.txt", cpuOnly, []string{"doctor"}, ExitFailure, "doctor: 1 check failed"},
		{"doctor-no-gpu.txt", noGPU, []string{"doctor"}, ExitOK, ""},
		{"doctor-no-gpu.json", noGPU, []string{"doctor", "-o", "json"}, ExitOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withDoctor(t, tc.machine(t))
			out, errOut, code := run(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.stderrIn) {
				t.Errorf("exit %d, stderr %q; want %d and stderr containing %q", code, errOut, tc.code, tc.stderrIn)
			}
			if strings.HasSuffix(tc.name, ".json") {
				var r struct {
					Checks []struct{ Name, Status, Detail, Fix *string }
				}
				if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Checks) == 0 {
					t.Fatalf("JSON: %v, %d checks", err, len(r.Checks))
				}
				for _, c := range r.Checks {
					if c.Name == nil || c.Status == nil || c.Detail == nil || c.Fix == nil {
						t.Errorf("a check lacks name, status, detail or fix: %+v", c)
					}
				}
			}
			golden(t, tc.name, out)
		})
	}
}

func editXML(f *doctor.Fake, oldnew ...string) {
	o := f.Outputs["nvidia-smi"]
	o.Stdout = strings.NewReplacer(oldnew...).Replace(o.Stdout)
	f.Outputs["nvidia-smi"] = o
}

func TestDoctorUsage(t *testing.T) {
	withDoctor(t, h200Doctor(t))
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"doctor", "-o", "csv"}, `--output "csv": doctor writes table or json`},
		{[]string{"doctor", "extra"}, "takes no arguments"},
		{[]string{"doctor", "--gpu", "H100"}, "unknown flag: --gpu"},
	} {
		_, errOut, code := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, ExitUsage, tc.stderr)
		}
	}
}
