package dl

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestVersionCodes(t *testing.T) {
	tests := []struct {
		name string
		f    func(int) string
		in   int
		want string
	}{
		{"cuda 13.0", CUDAVersion, 13000, "13.0"},
		{"cuda 12.4", CUDAVersion, 12040, "12.4"},
		{"nccl 2.27.3", NCCLVersion, 22703, "2.27.3"},
		{"nccl 2.8.4 (old scheme)", NCCLVersion, 2804, "2.8.4"},
		{"cudnn 9.10.2", CUDNNVersion, 91002, "9.10.2"},
		{"cudnn 8.9.7", CUDNNVersion, 8907, "8.9.7"},
	}
	for _, tt := range tests {
		if got := tt.f(tt.in); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestVersionFromLibrary(t *testing.T) {
	dir := fakeLibs(t)
	lib, err := OpenEnv(CUBLAS, dirEnv(filepath.Join(dir, "full")))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := lib.Version(); err != nil || v != "13.1.0" {
		t.Errorf("cublas Version() = %q, %v; want 13.1.0", v, err)
	}
	// The same file opened as NCCL lacks ncclGetVersion: a named error.
	lib.Lib = NCCL
	if _, err := lib.Version(); err == nil || !errors.As(err, new(*MissingError)) {
		t.Errorf("nccl Version() err = %v, want a MissingError", err)
	}
	lib.Lib = NVML
	if _, err := lib.Version(); !errors.Is(err, ErrNoVersion) {
		t.Errorf("nvml Version() err = %v, want ErrNoVersion", err)
	}
}
