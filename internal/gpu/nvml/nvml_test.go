package nvml

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
)

func TestMain(m *testing.M) { dltest.Main(m) }

// fake is an NVML opened on testdata/fakenvml.c built with flags, with the
// fake's controls bound.
type fake struct {
	*NVML
	set func(key string, v int64) int32
	bad func(buf *byte, n int32) int32
}

func openFake(t *testing.T, flags ...string) *fake {
	t.Helper()
	dir := dltest.Build(t, "testdata/fakenvml.c", "libnvidia-ml.so.1", flags...)
	n, err := OpenEnv(dltest.Env(dir))
	if err != nil {
		t.Fatal(err)
	}
	f := &fake{NVML: n}
	if _, err := n.Library().Bind([]dl.Symbol{dl.Sym(&f.set, "fake_nvml_set"), dl.Sym(&f.bad, "fake_nvml_bad")}); err != nil {
		t.Fatal(err)
	}
	f.set("reset", 0)
	t.Cleanup(func() {
		buf := make([]byte, 256)
		if k := f.bad(&buf[0], int32(len(buf))); k != 0 {
			t.Errorf("the fake NVML saw %d bad calls; last: %s", k, cString(buf))
		}
		if err := n.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return f
}

func TestStructLayouts(t *testing.T) {
	if got := unsafe.Sizeof(pciInfo{}); got != 68 {
		t.Errorf("nvmlPciInfo_t: %d bytes, want 68", got)
	}
	if got := unsafe.Sizeof(processInfo{}); got != 24 {
		t.Errorf("nvmlProcessInfo_t: %d bytes, want 24", got)
	}
	if got := unsafe.Offsetof(pciInfo{}.busID); got != 36 {
		t.Errorf("nvmlPciInfo_t.busId at %d, want 36", got)
	}
}

// The recorded H200 (../shared/data/gpu/h200-2026-11-30/gpuprobe.jsonl).
func TestH200Values(t *testing.T) {
	n := openFake(t)
	sys := []struct {
		name string
		f    func() (string, error)
		want string
	}{
		{"driver", n.DriverVersion, "580.159.04"},
		{"cuda", n.CUDADriverVersion, "13.0"},
		{"nvml", n.NVMLVersion, "13.580.159.04"},
	}
	for _, tt := range sys {
		if got, err := tt.f(); err != nil || got != tt.want {
			t.Errorf("%s = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	if c, err := n.DeviceCount(); err != nil || c != 1 {
		t.Fatalf("DeviceCount = %d, %v; want 1", c, err)
	}
	d, err := n.Device(0)
	if err != nil {
		t.Fatal(err)
	}
	str := []struct {
		name string
		f    func() (string, error)
		want string
	}{
		{"name", d.Name, "NVIDIA H200"},
		{"uuid", d.UUID, "GPU-8a89bb26-423b-7217-aa80-469f70fa0196"},
		{"ecc", d.ECC, "enabled"},
		{"mig", d.MIG, "disabled"},
		{"virtualization", d.Virtualization, "PASSTHROUGH"},
		{"architecture", d.Architecture, "Hopper"},
		{"compute capability", d.ComputeCapability, "9.0"},
	}
	for _, tt := range str {
		if got, err := tt.f(); err != nil || got != tt.want {
			t.Errorf("%s = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	m, err := d.Memory()
	if want := (Memory{Total: 143771 << 20, Free: 150109880320, Used: 644939776}); err != nil || m != want {
		t.Errorf("Memory = %+v, %v; want %+v", m, err, want)
	}
	p, err := d.PCI()
	if want := (PCI{BusID: "00000000:00:06.0", Device: 6, DeviceID: 0x233510de, SubsystemID: 0x18bf10de}); err != nil || p != want {
		t.Errorf("PCI = %+v, %v; want %+v", p, err, want)
	}
	for _, max := range []bool{false, true} {
		if l, err := d.PCIeLink(max); err != nil || l.String() != "Gen5 x16" {
			t.Errorf("PCIeLink(max=%v) = %v, %v; want Gen5 x16", max, l, err)
		}
	}
	clocks := []struct {
		c    Clock
		max  bool
		want int
	}{{ClockSM, false, 345}, {ClockMem, false, 3201}, {ClockSM, true, 1980}, {ClockMem, true, 3201}}
	for _, tt := range clocks {
		if got, err := d.ClockMHz(tt.c, tt.max); err != nil || got != tt.want {
			t.Errorf("ClockMHz(%d, %v) = %d, %v; want %d", tt.c, tt.max, got, err, tt.want)
		}
	}
	if _, err := d.ClockMHz(ClockVideo, false); !IsNotSupported(err) || !errors.Is(err, gpu.ErrUnsupported) {
		t.Errorf("video clock err = %v, want NOT_SUPPORTED matching gpu.ErrUnsupported", err)
	}
	floats := []struct {
		name string
		f    func() (float64, error)
		want float64
	}{
		{"power", d.PowerW, 80.056}, {"power limit", d.PowerLimitW, 700},
		{"energy", d.EnergyJ, 2718.713}, {"temperature", d.TemperatureC, 38},
	}
	for _, tt := range floats {
		if got, err := tt.f(); err != nil || math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if r, err := d.ClockEventReasons(); err != nil || r != 0x1 {
		t.Errorf("ClockEventReasons = %#x, %v; want 0x1 (GpuIdle)", r, err)
	}
	if _, err := d.NvLinks(); !IsNotSupported(err) {
		t.Errorf("NvLinks on one H200: err = %v, want NOT_SUPPORTED as recorded", err)
	} else if got := err.Error(); got != "nvmlDeviceGetNvLinkState: NVML_ERROR_NOT_SUPPORTED (3)" {
		t.Errorf("error text %q", got)
	}
	if n, err := d.NUMANode(); !IsNotSupported(err) || n != -1 {
		t.Errorf("NUMANode = %d, %v; want -1, NOT_SUPPORTED", n, err)
	}
	if ps, err := d.ComputeProcesses(); err != nil || len(ps) != 0 {
		t.Errorf("ComputeProcesses = %v, %v; want none", ps, err)
	}
}

func TestFillInfoAndSample(t *testing.T) {
	n := openFake(t)
	d, err := n.Device(0)
	if err != nil {
		t.Fatal(err)
	}
	info := gpu.Info{Runtime: "13.0 (from cuda)"}
	if errs := d.FillInfo(&info); len(errs) != 0 {
		t.Errorf("FillInfo errors: %v", errs)
	}
	want := gpu.Info{Name: "NVIDIA H200", UUID: "GPU-8a89bb26-423b-7217-aa80-469f70fa0196", MemoryBytes: 150754820096,
		Driver: "580.159.04", Runtime: "13.0 (from cuda)", ComputeCap: "9.0", ClockMHz: 345, MaxClockMHz: 1980,
		MemClockMHz: 3201, PowerLimitW: 700, PCIeGen: 5, PCIeWidth: 16, ECC: "enabled", MIG: "disabled",
		Virtualized: "PASSTHROUGH", NUMANode: -1, BusID: "00000000:00:06.0", Architecture: "Hopper"}
	lib := info.Libraries["nvml"]
	info.Libraries = nil
	if !reflect.DeepEqual(info, want) {
		t.Errorf("FillInfo:\n got %+v\nwant %+v", info, want)
	}
	if !strings.HasSuffix(lib, "/libnvidia-ml.so.1") {
		t.Errorf("Libraries[nvml] = %q", lib)
	}

	var s gpu.Sampler = d
	got, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if got.UtilGPU != 0 || got.MemUsedBytes != 644939776 || got.PowerW != 80.056 || got.TempC != 38 ||
		got.SMClockMHz != 345 || got.MemClockMHz != 3201 || got.ClockReasons != 1 ||
		!slices.Equal(got.ReasonsActive, []string{"gpu_idle"}) || got.At.IsZero() {
		t.Errorf("Sample = %+v", got)
	}
	n.set("reasons", 0x4)
	if got, _ := d.Sample(); !slices.Equal(got.ReasonsActive, []string{"sw_power_cap"}) {
		t.Errorf("under a power cap: reasons %v, want sw_power_cap", got.ReasonsActive)
	}
}

func TestLostGPU(t *testing.T) {
	n := openFake(t)
	d, err := n.Device(0)
	if err != nil {
		t.Fatal(err)
	}
	n.set("lost", 1)
	_, err = d.Utilization()
	var e *Error
	if !errors.As(err, &e) || e.Code != ErrorGPUIsLost || IsNotSupported(err) {
		t.Fatalf("err = %v, want GPU_IS_LOST", err)
	}
	if want := "nvmlDeviceGetUtilizationRates: NVML_ERROR_GPU_IS_LOST (15)"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	s, err := d.Sample()
	if err == nil || !math.IsNaN(s.PowerW) || s.SMClockMHz != -1 || s.MemUsedBytes != -1 {
		t.Errorf("Sample of a lost GPU = %+v, %v; want NaN/-1 fields and an error", s, err)
	}
}

func TestOlderDriverNames(t *testing.T) {
	n := openFake(t, "-DOLD_DRIVER")
	b := n.Bound()
	for first, want := range map[string]string{
		"nvmlDeviceGetCurrentClocksEventReasons":  "nvmlDeviceGetCurrentClocksThrottleReasons",
		"nvmlSystemGetCudaDriverVersion_v2":       "nvmlSystemGetCudaDriverVersion",
		"nvmlDeviceGetComputeRunningProcesses_v3": "nvmlDeviceGetComputeRunningProcesses_v2",
	} {
		if got := b.Names[first]; got != want {
			t.Errorf("%s bound as %q, want %q", first, got, want)
		}
	}
	if v, err := n.CUDADriverVersion(); err != nil || v != "13.0" {
		t.Errorf("CUDADriverVersion = %q, %v", v, err)
	}
	d, err := n.Device(0)
	if err != nil {
		t.Fatal(err)
	}
	// The throttle-reasons fake adds 0x100 so the bound name shows.
	if r, err := d.ClockEventReasons(); err != nil || r != 0x101 {
		t.Errorf("ClockEventReasons = %#x, %v; want 0x101", r, err)
	}
	n.set("procs", 20) // more than the first buffer of 16: a retry
	ps, err := d.ComputeProcesses()
	if err != nil || len(ps) != 20 {
		t.Fatalf("ComputeProcesses: %d, %v; want 20", len(ps), err)
	}
	if ps[0] != (Process{PID: 4242, UsedBytes: 512 << 20}) || ps[1] != (Process{PID: 4243, UsedBytes: -1}) {
		t.Errorf("processes %+v %+v", ps[0], ps[1])
	}
}

func TestMissingRequiredSymbol(t *testing.T) {
	dir := dltest.Build(t, "testdata/fakenvml.c", "libnvidia-ml.so.1", "-DNO_MEMINFO")
	_, err := OpenEnv(dltest.Env(dir))
	var me *dl.MissingError
	if !errors.As(err, &me) || !slices.Equal(me.Missing, []string{"nvmlDeviceGetMemoryInfo"}) {
		t.Fatalf("err = %v, want nvmlDeviceGetMemoryInfo missing", err)
	}
	if _, err := OpenEnv(dltest.Env(t.TempDir())); !errors.Is(err, dl.ErrNotFound) {
		t.Errorf("no library: err = %v, want dl.ErrNotFound", err)
	}
}

func TestTwoGPUsLinks(t *testing.T) {
	tests := []struct {
		nvlinks  int64
		typ      string
		nvStatus P2PStatus
		links    int
	}{
		{0, "NODE", 5, -1},
		{4, "NVLink", 0, 18},
	}
	for _, tt := range tests {
		n := openFake(t)
		n.set("gpus", 2)
		n.set("nvlink", tt.nvlinks)
		ds, err := n.Devices()
		if err != nil || len(ds) != 2 {
			t.Fatalf("Devices = %d, %v", len(ds), err)
		}
		l, err := ds[0].LinkTo(ds[1])
		if err != nil {
			t.Fatal(err)
		}
		if l.Type != tt.typ || l.NvLink != tt.nvStatus || l.Read != 0 || l.Write != 0 || l.Topology != "NODE" {
			t.Errorf("nvlinks=%d: LinkTo = %+v, want type %s, nvlink status %s", tt.nvlinks, l, tt.typ, tt.nvStatus)
		}
		links, err := ds[1].NvLinks()
		if tt.links < 0 {
			if !IsNotSupported(err) {
				t.Errorf("NvLinks err = %v, want NOT_SUPPORTED", err)
			}
		} else if err != nil || len(links) != tt.links || !links[3] || links[4] {
			t.Errorf("NvLinks = %v, %v; want %d links, 0..3 active", links, err, tt.links)
		}
		d, err := n.FindDevice("", "0000:00:07.0")
		if err != nil || d.Index() != 1 {
			t.Errorf("FindDevice by CUDA-style bus id: %v, %v", d, err)
		}
		d, err = n.FindDevice("GPU-8a89bb26-423b-7217-aa80-469f70fa0196", "")
		if err != nil || d.Index() != 0 {
			t.Errorf("FindDevice by uuid: %v, %v", d, err)
		}
		if _, err := n.FindDevice("GPU-nope", ""); err == nil {
			t.Error("FindDevice of an unknown uuid succeeded")
		}
	}
}

func TestNames(t *testing.T) {
	rets := []struct {
		r    Return
		want string
	}{{0, "NVML_SUCCESS"}, {3, "NVML_ERROR_NOT_SUPPORTED"}, {7, "NVML_ERROR_INSUFFICIENT_SIZE"},
		{18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH"}, {999, "NVML_ERROR_UNKNOWN"}, {77, "NVML_ERROR_77"}}
	for _, tt := range rets {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("Return(%d) = %s, want %s", tt.r, got, tt.want)
		}
	}
	reasons := []struct {
		mask uint64
		want []string
	}{
		{0, nil},
		{0x1, []string{"gpu_idle"}},
		{0x4 | 0x20, []string{"sw_power_cap", "sw_thermal_slowdown"}},
		{0x100 | 0x8000, []string{"display_clock_setting", "bit_0x8000"}},
	}
	for _, tt := range reasons {
		if got := ReasonNames(tt.mask); !slices.Equal(got, tt.want) {
			t.Errorf("ReasonNames(%#x) = %v, want %v", tt.mask, got, tt.want)
		}
	}
	bus := []struct {
		a, b string
		same bool
	}{
		{"00000000:00:06.0", "0000:00:06.0", true},
		{"00000000:1A:00.0", "0000:1a:00.0", true},
		{"00000001:00:06.0", "0000:00:06.0", false},
		{"00000000:00:06.0", "00000000:00:07.0", false},
	}
	for _, tt := range bus {
		if got := SameBusID(tt.a, tt.b); got != tt.same {
			t.Errorf("SameBusID(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}
