package doctor

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// want is what one check must say: its status, and text its detail and fix
// must contain.
type want struct {
	status      Status
	detail, fix string
	absent      bool // the check must not be reported
}

func TestRules(t *testing.T) {
	tests := []struct {
		name     string
		env      func(t *testing.T) *Fake
		want     map[string]want
		failed   bool
		notNames []string
	}{
		{
			name: "recorded H200 node",
			env:  h200Env,
			want: map[string]want{
				"driver":         {status: StatusOK, detail: "NVIDIA driver 580.159.04, CUDA driver API 13.0, 1 GPU"},
				"gpu0":           {status: StatusOK, detail: "NVIDIA H200 (Hopper), 143771 MiB, PCIe Gen5 x16, bus 00000000:00:06.0"},
				"mig":            {status: StatusOK, detail: "MIG off"},
				"virtualization": {status: StatusOK, detail: "Pass-Through"},
				"ecc":            {status: StatusOK, detail: "ECC on"},
				"persistence":    {status: StatusOK},
				"libcuda":        {status: StatusOK, detail: "CUDA driver (libcuda) 580.159.04 (driver API 13.0) at /usr/local/nvidia/lib64/libcuda.so.580.159.04"},
				"cublas":         {status: StatusOK, detail: "cuBLAS 13.1.0 at /usr/local/cuda-13.0/targets/x86_64-linux/lib/libcublas.so.13.1.0.3"},
				"cudart":         {status: StatusOK, detail: "cudart) 13 at /opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcudart.so.13"},
				"nccl":           {status: StatusOK, detail: "NCCL 2 at"},
				"cudnn":          {status: StatusMissing, detail: "cuDNN not found"},
				"python":         {status: StatusOK, detail: "Python 3.12.3 at /opt/torch/.venv/bin/python3"},
				"python-env":     {status: StatusOK, detail: "virtualenv /opt/torch/.venv active"},
				"pytorch":        {status: StatusOK, detail: "PyTorch 2.11.0+cu130 (CUDA 13.0)"},
				"pytorch-cuda":   {status: StatusOK, detail: "built for CUDA 13.0; driver 580.159.04 supports CUDA 13.0"},
				"pytorch-gpus":   {status: StatusOK, detail: "PyTorch sees the GPU: NVIDIA H200"},
			},
		},
		{
			name: "no GPU, no PyTorch: nothing fails",
			env:  cpuEnv,
			want: map[string]want{
				"driver":         {status: StatusMissing, detail: "no NVIDIA driver found", fix: "nothing to do on a CPU machine"},
				"cuda-libraries": {status: StatusMissing, detail: "no CUDA libraries found (CUDA driver (libcuda), CUDA runtime (cudart), cuBLAS, cuBLASLt, cuDNN, NCCL)", fix: "only needed on a GPU node"},
				"cublas":         {absent: true},
				"python":         {status: StatusOK, detail: "Python 3.11.7"},
				"python-env":     {status: StatusOK, detail: "system Python"},
				"pytorch":        {status: StatusMissing, detail: "PyTorch is not installed for /usr/bin/python3", fix: "whl/cpu"},
				"gpu0":           {absent: true},
				"mig":            {absent: true},
				"pytorch-cuda":   {absent: true},
			},
		},
		{
			name: "no python3 at all",
			env: func(t *testing.T) *Fake {
				f := cpuEnv(t)
				delete(f.Path, "python3")
				return f
			},
			want: map[string]want{
				"python":     {status: StatusMissing, detail: "python3 not found on PATH"},
				"python-env": {absent: true},
				"pytorch":    {status: StatusMissing},
			},
		},
		{
			name: "nvidia-smi missing, /dev/nvidia0 and libcuda present",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				delete(f.Path, "nvidia-smi")
				return f
			},
			want: map[string]want{
				"driver":       {status: StatusWarn, detail: "/dev/nvidia0 present and libcuda found, but nvidia-smi is not on PATH", fix: "nvidia-utils"},
				"gpu0":         {absent: true},
				"pytorch-cuda": {status: StatusOK, detail: "driver 580.159.04 supports CUDA 13.0"},
			},
		},
		{
			name: "nvidia-smi missing and libcuda not loadable: driver version unknown",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				delete(f.Path, "nvidia-smi")
				delete(f.Libraries, "cuda")
				return f
			},
			want: map[string]want{
				"pytorch-cuda": {status: StatusWarn, detail: "driver version is unknown"},
			},
		},
		{
			name: "nvidia-smi and libcuda missing, /dev/nvidia0 present",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				delete(f.Path, "nvidia-smi")
				f.remove("/usr/local/nvidia/lib64/libcuda")
				return f
			},
			failed: true,
			want: map[string]want{
				"driver":  {status: StatusFail, detail: "libcuda.so.1 is not found: CUDA programs cannot start"},
				"libcuda": {status: StatusFail, fix: "libnvidia-compute"},
			},
		},
		{
			name: "libcuda only as a toolkit stub",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				f.remove("/usr/local/nvidia/lib64/libcuda")
				f.Files = append(f.Files, "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so")
				return f
			},
			failed: true,
			want: map[string]want{
				"libcuda": {status: StatusFail, detail: "only the link-time stub /usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so", fix: "never put a stubs/ folder on LD_LIBRARY_PATH"},
			},
		},
		{
			name: "libraries present that do not load",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				f.Libraries["cuda"] = FakeLibrary{Err: errors.New("/usr/local/nvidia/lib64/libcuda.so.1: wrong ELF class: ELFCLASS32")}
				f.Libraries["cublas"] = FakeLibrary{Err: errors.New("libcublas.so.13: libcublasLt.so.13: cannot open shared object file")}
				return f
			},
			failed: true,
			want: map[string]want{
				"libcuda": {status: StatusFail, detail: "found at /usr/local/nvidia/lib64/libcuda.so.580.159.04, but it does not load: /usr/local/nvidia/lib64/libcuda.so.1: wrong ELF class", fix: "another architecture"},
				"cublas":  {status: StatusWarn, detail: "cuBLAS found at /usr/local/cuda-13.0/targets/x86_64-linux/lib/libcublas.so.13.1.0.3, but it does not load: libcublas.so.13: libcublasLt.so.13", fix: "companion library"},
			},
		},
		{
			name: "libcuda older than the kernel driver",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				editSMI(f, "<driver_version>580.159.04</driver_version>", "<driver_version>580.200.01</driver_version>")
				return f
			},
			want: map[string]want{"libcuda": {status: StatusWarn, detail: "older than the kernel driver 580.200.01", fix: "remove the stale libcuda"}},
		},
		{
			name: "libcuda newer than the kernel driver: forward compatibility",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				editSMI(f, "<driver_version>580.159.04</driver_version>", "<driver_version>575.57.08</driver_version>", "<cuda_version>13.0</cuda_version>", "<cuda_version>12.9</cuda_version>")
				return f
			},
			want: map[string]want{
				"libcuda":      {status: StatusOK, detail: "newer than the kernel driver 575.57.08: CUDA forward compatibility"},
				"pytorch-cuda": {status: StatusOK, detail: "driver 580.159.04 supports CUDA 13.0"},
			},
		},
		{
			name: "a CUDA runtime newer than the driver",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				f.Libraries["cudart"] = FakeLibrary{Path: "/usr/local/cuda-13.1/targets/x86_64-linux/lib/libcudart.so.13.1.80", Version: "13.1"}
				f.Files = append(f.Files, f.Libraries["cudart"].Path)
				return f
			},
			want: map[string]want{
				"cudart": {status: StatusWarn, detail: "CUDA runtime (cudart) 13.1 at /usr/local/cuda-13.1/targets/x86_64-linux/lib/libcudart.so.13.1.80 is built for CUDA 13.1; driver 580.159.04 supports CUDA 13.0", fix: "upgrade the NVIDIA driver"},
			},
		},
		{
			name: "cuBLAS only as a stub",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				f.Files = []string{"/dev/nvidia0", "/usr/local/nvidia/lib64/libcuda.so.580.159.04", "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcublas.so"}
				return f
			},
			want: map[string]want{
				"cublas": {status: StatusWarn, detail: "only the link-time stub", fix: "cuBLAS"},
				"nccl":   {status: StatusMissing, detail: "NCCL not found in the loader's folders, CUDA toolkits or PyTorch/NVIDIA wheel folders", fix: "libnccl"},
			},
		},
		{
			name: "nvidia-smi cannot reach the driver on a GPU node",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				f.Outputs["nvidia-smi"] = FakeOutput{Stdout: "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n", Err: errors.New("exit status 9")}
				return f
			},
			failed: true,
			want: map[string]want{
				"driver": {status: StatusFail, detail: "couldn't communicate with the NVIDIA driver", fix: "kernel module is not loaded"},
			},
		},
		{
			name: "nvidia-smi fails on a machine without GPU devices",
			env: func(t *testing.T) *Fake {
				f := cpuEnv(t)
				f.Path["nvidia-smi"] = "/usr/bin/nvidia-smi"
				f.Outputs["nvidia-smi"] = FakeOutput{Stdout: "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.", Err: errors.New("exit status 9")}
				return f
			},
			want: map[string]want{
				"driver": {status: StatusMissing, detail: "no NVIDIA GPU found"},
			},
		},
		{
			name: "driver/library version mismatch",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				f.Outputs["nvidia-smi"] = FakeOutput{Stdout: "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 580.159\n", Err: errors.New("exit status 18")}
				return f
			},
			failed: true,
			want:   map[string]want{"driver": {status: StatusFail, fix: "reboot"}},
		},
		{
			name: "nvidia-smi hangs",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				f.Outputs["nvidia-smi"] = FakeOutput{Err: errors.New("nvidia-smi did not finish within 20s: " + ErrTimeout.Error())}
				return f
			},
			failed: true,
			want:   map[string]want{"driver": {status: StatusFail, detail: "nvidia-smi hung", fix: "Xid"}},
		},
		{
			name: "unreadable nvidia-smi XML",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				f.Outputs["nvidia-smi"] = FakeOutput{Stdout: "<nvidia_smi_log><gpu>"}
				return f
			},
			failed: true,
			want:   map[string]want{"driver": {status: StatusFail, detail: "nvidia-smi XML"}},
		},
		{
			name: "MIG enabled",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				editSMI(f, "<current_mig>Disabled</current_mig>", "<current_mig>Enabled</current_mig>", "<pending_mig>Disabled</pending_mig>", "<pending_mig>Enabled</pending_mig>")
				editProbe(f, `"device_count": 1`, `"device_count": 2`)
				return f
			},
			want: map[string]want{
				"mig":          {status: StatusWarn, detail: "MIG is enabled on GPU 0 (NVIDIA H200): CUDA programs see MIG instances", fix: "sudo nvidia-smi -i 0 -mig 0"},
				"pytorch-gpus": {status: StatusOK, detail: "MIG instances count as devices"},
			},
		},
		{
			name: "MIG change pending",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				editSMI(f, "<pending_mig>Disabled</pending_mig>", "<pending_mig>Enabled</pending_mig>")
				return f
			},
			want: map[string]want{"mig": {status: StatusWarn, detail: "pending on GPU 0 (now Disabled, Enabled after a reset)", fix: "reset the GPU"}},
		},
		{
			name: "vGPU guest",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				editSMI(f, "<virtualization_mode>Pass-Through</virtualization_mode>", "<virtualization_mode>VGPU</virtualization_mode>")
				return f
			},
			want: map[string]want{"virtualization": {status: StatusWarn, detail: "NVIDIA vGPU", fix: "passthrough or bare-metal"}},
		},
		{
			name: "bare metal",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				editSMI(f, "<virtualization_mode>Pass-Through</virtualization_mode>", "<virtualization_mode>None</virtualization_mode>")
				return f
			},
			want: map[string]want{"virtualization": {status: StatusOK, detail: "bare metal"}},
		},
		{
			name: "ECC off on a datacenter GPU",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				editSMI(f, "<current_ecc>Enabled</current_ecc>", "<current_ecc>Disabled</current_ecc>", "<pending_ecc>Enabled</pending_ecc>", "<pending_ecc>Disabled</pending_ecc>")
				return f
			},
			want: map[string]want{"ecc": {status: StatusWarn, detail: "ECC is off on GPU 0 (NVIDIA H200)", fix: "sudo nvidia-smi -i 0 -e 1"}},
		},
		{
			name: "ECC off on a GeForce card is its default",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				editSMI(f, "<current_ecc>Enabled</current_ecc>", "<current_ecc>Disabled</current_ecc>", "<pending_ecc>Enabled</pending_ecc>", "<pending_ecc>Disabled</pending_ecc>",
					"<product_brand>NVIDIA</product_brand>", "<product_brand>GeForce</product_brand>")
				return f
			},
			want: map[string]want{"ecc": {status: StatusOK}},
		},
		{
			name: "persistence mode off",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				editSMI(f, "<persistence_mode>Enabled</persistence_mode>", "<persistence_mode>Disabled</persistence_mode>")
				return f
			},
			want: map[string]want{"persistence": {status: StatusWarn, detail: "persistence mode off on GPU 0", fix: "sudo nvidia-smi -pm 1"}},
		},
		{
			name: "PCIe link at half width",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				editSMI(f, "<current_link_width>16x</current_link_width>", "<current_link_width>8x</current_link_width>")
				return f
			},
			want: map[string]want{"gpu0": {status: StatusWarn, detail: "runs 8 of 16 lanes, so host↔device copies get at most 50%"}},
		},
		{
			name: "CPU-only PyTorch on a GPU node",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				f.Outputs["python3"] = FakeOutput{Stdout: mustRead(t, "testdata/probe-cpu-only.json")}
				return f
			},
			failed: true,
			want: map[string]want{
				"pytorch":      {status: StatusOK, detail: "CPU-only build"},
				"pytorch-cuda": {status: StatusFail, detail: "PyTorch 2.11.0+cpu is a CPU-only build; this node has 1 NVIDIA GPU", fix: "--index-url https://download.pytorch.org/whl/cu130"},
				"pytorch-gpus": {absent: true},
			},
		},
		{
			name: "ROCm PyTorch on an NVIDIA node",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				editProbe(f, `"2.11.0+cu130"`, `"2.11.0+rocm6.4"`, `"cuda": "13.0"`, `"cuda": null`, `"hip": null`, `"hip": "6.4.43482"`)
				return f
			},
			failed: true,
			want: map[string]want{
				"pytorch":      {status: StatusOK, detail: "(ROCm 6.4.43482)"},
				"pytorch-cuda": {status: StatusFail, detail: "is a ROCm (AMD) build; this node has 1 NVIDIA GPU", fix: "whl/cu130"},
			},
		},
		{
			name: "no PyTorch on the GPU node",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				f.Outputs["python3"] = FakeOutput{Stdout: mustRead(t, "testdata/probe-no-torch.json")}
				return f
			},
			want: map[string]want{
				"pytorch":      {status: StatusMissing, detail: "PyTorch is not installed for /opt/torch/.venv/bin/python3", fix: "this driver supports CUDA 13.0, so take cu130 or an older CUDA build"},
				"pytorch-cuda": {absent: true},
				"pytorch-gpus": {absent: true},
			},
		},
		{
			name: "CPU-only PyTorch without a GPU",
			env: func(t *testing.T) *Fake {
				f := cpuEnv(t)
				f.Outputs["python3"] = FakeOutput{Stdout: mustRead(t, "testdata/probe-cpu-only.json")}
				return f
			},
			want: map[string]want{"pytorch-cuda": {status: StatusOK, detail: "CPU-only PyTorch 2.11.0+cpu on a machine without an NVIDIA GPU"}},
		},
		{
			name: "driver too old for the PyTorch build (CUDA 13.0 on driver 575)",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				setDriver(f, "575.57.08", "12.9")
				editProbe(f, `"cuda_available": true`, `"cuda_available": false`, `"device_count": 1`, `"device_count": 0`,
					`"cuda_warnings": []`, `"cuda_warnings": ["CUDA initialization: The NVIDIA driver on your system is too old (found version 12090)."]`)
				return f
			},
			failed: true,
			want: map[string]want{
				"pytorch-cuda": {status: StatusFail, detail: "needs driver ≥ 580 on Linux; this driver is 575.57.08 (source: NVIDIA CUDA Compatibility guide", fix: "upgrade the NVIDIA driver to 580 or newer"},
				"pytorch-gpus": {status: StatusFail, detail: "PyTorch sees no GPU, nvidia-smi sees 1: CUDA initialization: The NVIDIA driver on your system is too old"},
			},
		},
		{
			name: "PyTorch 1.13 for CUDA 11.7 on a CUDA 11.4 driver: minor version compatibility",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				setDriver(f, "470.82.01", "11.4")
				f.Outputs["python3"] = FakeOutput{Stdout: mustRead(t, "testdata/probe-torch113-cu117.json")}
				return f
			},
			failed: true,
			want: map[string]want{
				"pytorch":      {status: StatusOK, detail: "PyTorch 1.13.1+cu117 (CUDA 11.7, cuDNN 8.5.0, NCCL 2.14.3)"},
				"pytorch-cuda": {status: StatusWarn, detail: "minor version compatibility", fix: "whl/cu114"},
				"pytorch-gpus": {status: StatusFail},
			},
		},
		{
			name: "CUDA_VISIBLE_DEVICES empty hides the GPUs",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				f.Env["CUDA_VISIBLE_DEVICES"] = ""
				editProbe(f, `"cuda_available": true`, `"cuda_available": false`, `"device_count": 1`, `"device_count": 0`)
				return f
			},
			failed: true,
			want:   map[string]want{"pytorch-gpus": {status: StatusFail, detail: `CUDA_VISIBLE_DEVICES="" hides them`, fix: "unset CUDA_VISIBLE_DEVICES"}},
		},
		{
			name: "PyTorch sees fewer GPUs than nvidia-smi",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				xml := f.Outputs["nvidia-smi"].Stdout
				i, j := strings.Index(xml, "\t<gpu id="), strings.LastIndex(xml, "</gpu>")+len("</gpu>\n")
				editSMI(f, xml[i:j], xml[i:j]+xml[i:j])
				return f
			},
			want: map[string]want{
				"driver":       {status: StatusOK, detail: "2 GPUs"},
				"gpu1":         {status: StatusOK},
				"pytorch-gpus": {status: StatusWarn, detail: "PyTorch sees 1 of the 2 GPUs"},
			},
		},
		{
			name: "conda installed but not activated (the DLAMI case)",
			env: func(t *testing.T) *Fake {
				f := cpuEnv(t)
				f.Files = append(f.Files, "/opt/conda/bin/conda", "/opt/conda/envs/pytorch/lib/python3.10/site-packages/torch/__init__.py", "/opt/conda/envs/tensorflow/bin/python")
				return f
			},
			want: map[string]want{
				"python-env": {status: StatusWarn, detail: `PyTorch is installed in conda "pytorch" (/opt/conda/envs/pytorch), which is not activated; python3 on PATH (/usr/bin/python3) has no PyTorch`, fix: "source /opt/conda/bin/activate pytorch"},
			},
		},
		{
			name: "conda base active, PyTorch in another env",
			env: func(t *testing.T) *Fake {
				f := cpuEnv(t)
				f.Files = append(f.Files, "/opt/conda/bin/conda", "/opt/conda/envs/pytorch/lib/python3.10/site-packages/torch/__init__.py")
				f.Env["CONDA_PREFIX"], f.Env["CONDA_DEFAULT_ENV"] = "/opt/conda", "base"
				return f
			},
			want: map[string]want{"python-env": {status: StatusWarn, detail: `has no PyTorch (conda environment "base" active (/opt/conda))`, fix: "source /opt/conda/bin/activate pytorch"}},
		},
		{
			name: "AWS DLAMI venv not activated",
			env: func(t *testing.T) *Fake {
				f := cpuEnv(t)
				f.Files = append(f.Files, "/opt/pytorch/bin/activate", "/opt/pytorch/lib/python3.12/site-packages/torch/__init__.py")
				return f
			},
			want: map[string]want{"python-env": {status: StatusWarn, detail: "venv /opt/pytorch", fix: "source /opt/pytorch/bin/activate"}},
		},
		{
			name: "conda env active",
			env: func(t *testing.T) *Fake {
				f := cpuEnv(t)
				f.Files = append(f.Files, "/opt/conda/bin/conda")
				f.Env["CONDA_PREFIX"], f.Env["CONDA_DEFAULT_ENV"] = "/opt/conda/envs/pytorch", "pytorch"
				return f
			},
			want: map[string]want{"python-env": {status: StatusOK, detail: `conda environment "pytorch" active`}},
		},
		{
			name: "import torch fails",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				f.Outputs["python3"] = FakeOutput{Stdout: `{"python": "3.12.3", "executable": "/usr/bin/python3", "torch_error": "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory", "torch_missing": false}`}
				return f
			},
			failed: true,
			want:   map[string]want{"pytorch": {status: StatusFail, detail: "libcudnn.so.9: cannot open shared object file", fix: "--force-reinstall"}, "pytorch-cuda": {absent: true}},
		},
		{
			name: "the Python probe hangs",
			env: func(t *testing.T) *Fake {
				f := h200Env(t)
				f.Outputs["python3"] = FakeOutput{Err: errors.New("python3 did not finish within 1m30s: " + ErrTimeout.Error())}
				return f
			},
			failed: true,
			want:   map[string]want{"python": {status: StatusFail, detail: "did not finish within 1m30s"}, "pytorch": {status: StatusMissing, detail: "not checked"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Run(context.Background(), tt.env(t))
			checkReport(t, r, tt.want, tt.failed)
		})
	}
}

// TestRunProgress: each step is named before it runs, in order.
func TestRunProgress(t *testing.T) {
	var steps []string
	RunProgress(context.Background(), cpuEnv(t), func(s string) { steps = append(steps, s) })
	want := []string{"nvidia-smi", "CUDA libraries", "Python environments", "python3 and PyTorch (import torch can take a while)"}
	if strings.Join(steps, "|") != strings.Join(want, "|") {
		t.Errorf("steps %q, want %q", steps, want)
	}
}
