package doctor

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func readProbe(t *testing.T, name string) Python {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseTorchProbe(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

func TestParseTorchProbe(t *testing.T) {
	t.Run("no torch (recorded)", func(t *testing.T) {
		p := readProbe(t, "probe-no-torch.json")
		if p.Version != "3.11.7" || p.Torch != nil || !p.TorchMissing || !strings.Contains(p.TorchError, "No module named 'torch'") {
			t.Errorf("got %+v", p)
		}
	})
	t.Run("Debian python3-torch 1.13 (recorded)", func(t *testing.T) {
		p := readProbe(t, "probe-debian-torch113.json")
		tc := p.Torch
		if p.Version != "3.11.2" || p.Executable != "/usr/bin/python3" || tc == nil || tc.Version != "1.13.0a0" || tc.CUDA != "" ||
			tc.CUDAAvailable || tc.DeviceCount != 0 || tc.Path != "/usr/lib/python3/dist-packages/torch/__init__.py" {
			t.Errorf("got %+v / %+v", p, tc)
		}
	})
	t.Run("H200 cu130", func(t *testing.T) {
		p := readProbe(t, "probe-h200-cu130.json")
		tc := p.Torch
		if tc == nil {
			t.Fatal("no torch")
		}
		if p.Prefix != "/opt/torch/.venv" || p.BasePrefix != "/usr" || tc.Version != "2.11.0+cu130" || tc.CUDA != "13.0" ||
			!tc.CUDAAvailable || tc.DeviceCount != 1 || !slices.Equal(tc.Devices, []string{"NVIDIA H200"}) || tc.CuDNN != "" || tc.NCCL != "" {
			t.Errorf("got %+v / %+v", p, tc)
		}
	})
	t.Run("CPU-only", func(t *testing.T) {
		p := readProbe(t, "probe-cpu-only.json")
		if p.Torch == nil || p.Torch.CUDA != "" || p.Torch.CUDAAvailable || p.Torch.Version != "2.11.0+cpu" {
			t.Errorf("got %+v", p.Torch)
		}
	})
	t.Run("torch 1.13 with a warning line first", func(t *testing.T) {
		p := readProbe(t, "probe-torch113-cu117.json")
		tc := p.Torch
		if tc == nil || tc.CUDA != "11.7" || tc.CuDNN != "8.5.0" || tc.NCCL != "2.14.3" || tc.CUDAAvailable || len(tc.CUDAWarnings) != 1 {
			t.Errorf("got %+v", tc)
		}
	})
}

func TestParseTorchProbeBad(t *testing.T) {
	for _, in := range []string{"", "Segmentation fault", "{not json", `{"torch": 3}`} {
		if _, err := ParseTorchProbe([]byte(in)); err == nil {
			t.Errorf("ParseTorchProbe(%q): no error", in)
		}
	}
}

// TestVersionEncodings: cuDNN 9 encodes major·10000+minor·100+patch, cuDNN 8
// major·1000+minor·100+patch (cudnn.h CUDNN_VERSION); NCCL from 2.9 on
// major·10000+minor·100+patch, before major·1000+minor·100+patch
// (nccl.h NCCL_VERSION_CODE); current PyTorch returns NCCL as a tuple.
func TestVersionEncodings(t *testing.T) {
	cudnn := []struct {
		in   int
		want string
	}{{91300, "9.13.0"}, {90100, "9.1.0"}, {8907, "8.9.7"}, {8500, "8.5.0"}, {7605, "7.6.5"}, {0, ""}, {-1, ""}}
	for _, tt := range cudnn {
		if got := cudnnVersion(tt.in); got != tt.want {
			t.Errorf("cudnnVersion(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
	nccl := []struct {
		in, want string
	}{{"[2, 27, 7]", "2.27.7"}, {"21805", "2.18.5"}, {"2708", "2.7.8"}, {"null", ""}, {"\"x\"", ""}, {"0", ""}}
	for _, tt := range nccl {
		if got := ncclVersion([]byte(tt.in)); got != tt.want {
			t.Errorf("ncclVersion(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzParseTorchProbe: any output gives an answer or an error, never a panic.
func FuzzParseTorchProbe(f *testing.F) {
	for _, name := range []string{"probe-no-torch.json", "probe-h200-cu130.json", "probe-torch113-cu117.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"torch": {"device_count": -5, "cudnn": -1, "nccl": [1e9]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseTorchProbe(b)
		if err == nil && p.Torch != nil && p.Torch.DeviceCount < 0 {
			t.Errorf("negative device count from %q", b)
		}
	})
}
