package doctor

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// torchProbe is the Python script doctor runs with `python3 -c`: it prints
// one JSON object (see ParseTorchProbe).
//
//go:embed torchprobe.py
var torchProbe string

// Python is what the probe learned about the python3 on PATH.
type Python struct {
	Path       string // the python3 found on PATH; empty when none
	Version    string // "3.11.7"
	Executable string // sys.executable
	Prefix     string // sys.prefix
	BasePrefix string // sys.base_prefix: differs from Prefix inside a venv
	// ProbeError says why the probe gave no answer (timeout, crash, bad
	// output); empty when it answered.
	ProbeError string
	Torch      *Torch // nil when torch could not be imported
	// TorchMissing: torch is not installed (ModuleNotFoundError for torch
	// itself); TorchError is the import error either way.
	TorchMissing bool
	TorchError   string
}

// Torch is the PyTorch the probe imported.
type Torch struct {
	Version       string   // "2.11.0+cu130"
	CUDA          string   // torch.version.cuda: "13.0"; empty for a CPU-only build
	HIP           string   // torch.version.hip: a ROCm build
	Path          string   // torch.__file__
	CUDAAvailable bool     // torch.cuda.is_available()
	DeviceCount   int      // torch.cuda.device_count()
	Devices       []string // device names
	CUDAError     string   // an exception from the CUDA queries
	CUDAWarnings  []string // warnings they raised ("The NVIDIA driver on your system is too old")
	CuDNN         string   // "9.13.0"; empty when unknown
	NCCL          string   // "2.27.7"; empty when unknown
	ArchList      []string // "sm_90", ...
}

// probeJSON is the probe's output as printed.
type probeJSON struct {
	Python       string `json:"python"`
	Executable   string `json:"executable"`
	Prefix       string `json:"prefix"`
	BasePrefix   string `json:"base_prefix"`
	TorchError   string `json:"torch_error"`
	TorchMissing bool   `json:"torch_missing"`
	Torch        *struct {
		Version       string          `json:"version"`
		CUDA          *string         `json:"cuda"`
		HIP           *string         `json:"hip"`
		Path          *string         `json:"path"`
		CUDAAvailable bool            `json:"cuda_available"`
		DeviceCount   int             `json:"device_count"`
		Devices       []string        `json:"devices"`
		CUDAError     string          `json:"cuda_error"`
		CUDAWarnings  []string        `json:"cuda_warnings"`
		CuDNN         *int            `json:"cudnn"`
		NCCL          json.RawMessage `json:"nccl"`
		ArchList      []string        `json:"arch_list"`
	} `json:"torch"`
}

// ParseTorchProbe reads the probe's output: the last line that holds a JSON
// object (torch may print warnings before it).
func ParseTorchProbe(out []byte) (Python, error) {
	var line string
	for l := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "{") {
			line = l
		}
	}
	if line == "" {
		return Python{}, fmt.Errorf("the Python probe printed no JSON object: %q", excerpt(string(out)))
	}
	var p probeJSON
	if err := json.Unmarshal([]byte(line), &p); err != nil {
		return Python{}, fmt.Errorf("the Python probe's output is not what doctor expects: %v", err)
	}
	py := Python{
		Version: clean(p.Python), Executable: clean(p.Executable), Prefix: clean(p.Prefix), BasePrefix: clean(p.BasePrefix),
		TorchMissing: p.TorchMissing, TorchError: clean(p.TorchError),
	}
	if p.Torch == nil {
		if py.TorchError == "" {
			py.TorchError = "the probe did not report torch"
		}
		return py, nil
	}
	t := &Torch{
		Version: clean(p.Torch.Version), CUDA: clean(deref(p.Torch.CUDA)), HIP: clean(deref(p.Torch.HIP)),
		Path: clean(deref(p.Torch.Path)), CUDAAvailable: p.Torch.CUDAAvailable, DeviceCount: max(p.Torch.DeviceCount, 0),
		Devices: p.Torch.Devices, CUDAError: clean(p.Torch.CUDAError), CUDAWarnings: p.Torch.CUDAWarnings,
		ArchList: p.Torch.ArchList,
	}
	if p.Torch.CuDNN != nil {
		t.CuDNN = cudnnVersion(*p.Torch.CuDNN)
	}
	t.NCCL = ncclVersion(p.Torch.NCCL)
	py.Torch = t
	return py, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// excerpt shortens output quoted in a message.
func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// cudnnVersion writes torch.backends.cudnn.version(): cuDNN 9 encodes
// major·10000 + minor·100 + patch (91300 → 9.13.0), cuDNN 8 and older
// major·1000 + minor·100 + patch (8907 → 8.9.7). Zero or less is unknown.
func cudnnVersion(v int) string {
	switch {
	case v <= 0:
		return ""
	case v >= 90000:
		return fmt.Sprintf("%d.%d.%d", v/10000, v%10000/100, v%100)
	default:
		return fmt.Sprintf("%d.%d.%d", v/1000, v%1000/100, v%100)
	}
}

// ncclVersion writes torch.cuda.nccl.version(): a [major, minor, patch] list
// in current PyTorch, a number in old ones (2708 → 2.7.8, and from NCCL
// 2.9 on major·10000 + minor·100 + patch: 21805 → 2.18.5).
func ncclVersion(raw json.RawMessage) string {
	var parts []int
	if err := json.Unmarshal(raw, &parts); err == nil && len(parts) > 0 {
		s := make([]string, len(parts))
		for i, p := range parts {
			s[i] = strconv.Itoa(p)
		}
		return strings.Join(s, ".")
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil || n <= 0 {
		return ""
	}
	if n >= 20900 {
		return fmt.Sprintf("%d.%d.%d", n/10000, n%10000/100, n%100)
	}
	return fmt.Sprintf("%d.%d.%d", n/1000, n%1000/100, n%100)
}
