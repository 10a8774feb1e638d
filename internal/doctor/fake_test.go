package doctor

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
)

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// h200Env is the recorded H200 node: its nvidia-smi XML, the library files
// its probe loaded (libcuda.so.580.159.04 under /usr/local/nvidia/lib64,
// cuBLAS 13.1.0.3 in the CUDA 13.0 toolkit and libcublas.so.13 in the
// PyTorch venv's nvidia/cu13 wheel folder, where that wheel also puts the
// CUDA runtime and NCCL), and PyTorch 2.11.0+cu130 in /opt/torch/.venv.
func h200Env(t *testing.T) *Fake {
	wheel := "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/"
	toolkit := "/usr/local/cuda-13.0/targets/x86_64-linux/lib/"
	return &Fake{
		Files: []string{
			"/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm",
			"/usr/local/nvidia/lib64/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.580.159.04",
			toolkit + "libcublas.so.13", toolkit + "libcublas.so.13.1.0.3", toolkit + "libcublasLt.so.13.1.0.3",
			toolkit + "stubs/libcublas.so",
			wheel + "libcublas.so.13", wheel + "libcublasLt.so.13", wheel + "libcudart.so.13", wheel + "libnccl.so.2",
			"/opt/torch/.venv/bin/python3", "/opt/torch/.venv/bin/activate",
			"/opt/torch/.venv/lib/python3.12/site-packages/torch/__init__.py",
		},
		Env:  map[string]string{"VIRTUAL_ENV": "/opt/torch/.venv", "LD_LIBRARY_PATH": "/usr/local/nvidia/lib64:/usr/local/nvidia/lib"},
		Path: map[string]string{"nvidia-smi": "/usr/bin/nvidia-smi", "python3": "/opt/torch/.venv/bin/python3"},
		Outputs: map[string]FakeOutput{
			"nvidia-smi": {Stdout: mustRead(t, h200XML)},
			"python3":    {Stdout: mustRead(t, "testdata/probe-h200-cu130.json")},
		},
		HomeDir: "/home/ubuntu",
		// What the recorded probe's loader opened and the versions the
		// libraries reported (gpuprobe.jsonl: cuDriverGetVersion 13000,
		// cublasGetVersion 13.1.0).
		Libraries: map[string]FakeLibrary{
			"cuda":   {Path: "/usr/local/nvidia/lib64/libcuda.so.580.159.04", Version: "13.0"},
			"cublas": {Path: toolkit + "libcublas.so.13.1.0.3", Version: "13.1.0"},
		},
	}
}

// cpuEnv is a machine without a GPU and without PyTorch: the development
// machine's recorded probe output.
func cpuEnv(t *testing.T) *Fake {
	return &Fake{
		Files:   []string{"/usr/bin/python3"},
		Env:     map[string]string{},
		Path:    map[string]string{"python3": "/usr/bin/python3"},
		Outputs: map[string]FakeOutput{"python3": {Stdout: mustRead(t, "testdata/probe-no-torch.json")}},
		HomeDir: "/root",
	}
}

// editSMI changes the recorded XML.
func editSMI(f *Fake, oldnew ...string) {
	o := f.Outputs["nvidia-smi"]
	o.Stdout = strings.NewReplacer(oldnew...).Replace(o.Stdout)
	f.Outputs["nvidia-smi"] = o
}

// editProbe changes the probe's JSON.
func editProbe(f *Fake, oldnew ...string) {
	o := f.Outputs["python3"]
	o.Stdout = strings.NewReplacer(oldnew...).Replace(o.Stdout)
	f.Outputs["python3"] = o
}

func (f *Fake) remove(prefix string) {
	f.Files = slices.DeleteFunc(f.Files, func(s string) bool { return strings.HasPrefix(s, prefix) })
}

// setDriver makes the H200 node run another driver: nvidia-smi's versions,
// and the libcuda file and what it reports.
func setDriver(f *Fake, driver, cuda string) {
	editSMI(f, "<driver_version>580.159.04</driver_version>", "<driver_version>"+driver+"</driver_version>",
		"<cuda_version>13.0</cuda_version>", "<cuda_version>"+cuda+"</cuda_version>")
	f.remove("/usr/local/nvidia/lib64/libcuda.so.580")
	lib := "/usr/local/nvidia/lib64/libcuda.so." + driver
	f.Files = append(f.Files, lib)
	f.Libraries["cuda"] = FakeLibrary{Path: lib, Version: cuda}
}

// TestDoctorChecksTheWorkloadsPython: with GPUSCOUT_PYTHON set, doctor probes
// that interpreter (the one `bench workload` runs), not python3 on PATH.
func TestDoctorChecksTheWorkloadsPython(t *testing.T) {
	f := cpuEnv(t)
	f.Env["GPUSCOUT_PYTHON"] = "/opt/venv/bin/python"
	f.Path["/opt/venv/bin/python"] = "/opt/venv/bin/python"
	f.Outputs["/opt/venv/bin/python"] = FakeOutput{Stdout: mustRead(t, "testdata/probe-debian-torch113.json")}
	p := gatherPython(context.Background(), f)
	if p.Path != "/opt/venv/bin/python" || p.Torch == nil {
		t.Errorf("probed %q (torch %v); want /opt/venv/bin/python with its torch", p.Path, p.Torch)
	}
	delete(f.Env, "GPUSCOUT_PYTHON")
	if p := gatherPython(context.Background(), f); p.Path != "/usr/bin/python3" || p.Torch != nil {
		t.Errorf("without GPUSCOUT_PYTHON probed %q (torch %v); want python3 on PATH, no torch", p.Path, p.Torch)
	}
}
