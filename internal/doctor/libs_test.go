package doctor

import (
	"slices"
	"testing"
)

func TestSoVersion(t *testing.T) {
	tests := []struct {
		file, stem, key string
		want            []int
		short           string
	}{
		{"/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcublas.so.13.1.0.3", "libcublas.so", "cublas", []int{13, 1, 0, 3}, "13.1"},
		{"/x/nvidia/cu13/lib/libcublas.so.13", "libcublas.so", "cublas", []int{13}, "13"},
		{"/usr/local/nvidia/lib64/libcuda.so.580.159.04", "libcuda.so", "libcuda", []int{580, 159, 4}, "580.159.04"},
		{"/usr/lib/libcudnn.so.9.1.0", "libcudnn.so", "cudnn", []int{9, 1, 0}, "9.1"},
		{"/usr/lib/libnccl.so.2.21.5", "libnccl.so", "nccl", []int{2, 21, 5}, "2.21"},
		{"/usr/lib/libcudart.so.12.4.127", "libcudart.so", "cudart", []int{12, 4, 127}, "12.4"},
		{"/usr/lib/libcublas.so", "libcublas.so", "cublas", nil, ""},
		{"/usr/lib/libcublasLt.so.13", "libcublas.so", "cublas", nil, ""},
		{"/usr/lib/libcudnn.so.9.bak", "libcudnn.so", "cudnn", nil, ""},
	}
	for _, tt := range tests {
		got := soVersion(tt.file, tt.stem)
		if !slices.Equal(got, tt.want) {
			t.Errorf("soVersion(%q) = %v, want %v", tt.file, got, tt.want)
		}
		if s := shortVersion(tt.key, got); s != tt.short {
			t.Errorf("shortVersion(%s, %v) = %q, want %q", tt.key, got, s, tt.short)
		}
	}
}

// TestPickLibrary: the file named with the fullest version wins (the H200's
// toolkit cuBLAS over its wheel's libcublas.so.13); libcublasLt is not
// libcublas; stubs are only reported.
func TestPickLibrary(t *testing.T) {
	w := wantedLibrary{"cublas", "cuBLAS", "libcublas.so"}
	files := []string{
		"/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublas.so.13",
		"/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcublasLt.so.13.1.0.3",
		"/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcublas.so.13.1.0.3",
		"/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcublas.so.13",
		"/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcublas.so",
	}
	l := pickLibrary(w, files)
	if l.Path != files[2] || l.Version != "13.1" || !slices.Equal(l.Stubs, files[4:]) {
		t.Errorf("got %+v", l)
	}
	l = pickLibrary(w, files[4:])
	if l.Found() || len(l.Stubs) != 1 {
		t.Errorf("stubs only: got %+v", l)
	}
}
