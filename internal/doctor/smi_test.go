package doctor

import (
	"os"
	"strings"
	"testing"
)

// h200XML is `nvidia-smi -q -x` recorded on one H200 node (see its SOURCE.md).
const h200XML = "../../../shared/data/gpu/h200-2026-11-30/nvidia-smi-q.xml"

func readH200(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(h200XML)
	if err != nil {
		t.Fatalf("the recorded H200 output: %v", err)
	}
	return b
}

// TestParseSMIH200 asserts the values the recorded log holds (see the XML:
// driver_version, cuda_version, product_name, fb_memory_usage/total, ...).
func TestParseSMIH200(t *testing.T) {
	s, err := ParseSMI(readH200(t))
	if err != nil {
		t.Fatal(err)
	}
	if s.Driver != "580.159.04" || s.CUDA != "13.0" {
		t.Errorf("driver, cuda = %q, %q; want 580.159.04, 13.0", s.Driver, s.CUDA)
	}
	if len(s.GPUs) != 1 {
		t.Fatalf("got %d GPUs, want 1", len(s.GPUs))
	}
	want := SMIGPU{
		Index: 0, Name: "NVIDIA H200", Brand: "NVIDIA", Architecture: "Hopper",
		UUID: "GPU-8a89bb26-423b-7217-aa80-469f70fa0196", BusID: "00000000:00:06.0",
		MemoryMiB: 143771, Persistence: "Enabled", MIGCurrent: "Disabled", MIGPending: "Disabled",
		Virtualization: "Pass-Through", ECCCurrent: "Enabled", ECCPending: "Enabled",
		PCIeGen: 5, PCIeGenMax: 5, PCIeWidth: 16, PCIeWidthMax: 16,
	}
	if got := s.GPUs[0]; got != want {
		t.Errorf("GPU 0:\n got %+v\nwant %+v", got, want)
	}
}

func TestParseSMIErrors(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"empty", "", "nvidia-smi XML"},
		{"not xml", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.", "nvidia-smi XML"},
		{"wrong root", "<foo></foo>", "nvidia_smi_log"},
		{"truncated", "<nvidia_smi_log><driver_version>580", "EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSMI([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("got error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestParseSMIEdited: the fields the rules read, changed in a copy of the
// recorded log, come out as written.
func TestParseSMIEdited(t *testing.T) {
	b := string(readH200(t))
	r := strings.NewReplacer(
		"<current_mig>Disabled</current_mig>", "<current_mig>Enabled</current_mig>",
		"<virtualization_mode>Pass-Through</virtualization_mode>", "<virtualization_mode>VGPU</virtualization_mode>",
		"<current_ecc>Enabled</current_ecc>", "<current_ecc>Disabled</current_ecc>",
		"<persistence_mode>Enabled</persistence_mode>", "<persistence_mode>Disabled</persistence_mode>",
		"<current_link_width>16x</current_link_width>", "<current_link_width>8x</current_link_width>",
		"<total>143771 MiB</total>", "<total>N/A</total>",
	)
	s, err := ParseSMI([]byte(r.Replace(b)))
	if err != nil {
		t.Fatal(err)
	}
	g := s.GPUs[0]
	if g.MIGCurrent != "Enabled" || g.Virtualization != "VGPU" || g.ECCCurrent != "Disabled" || g.Persistence != "Disabled" || g.PCIeWidth != 8 || g.MemoryMiB != 0 {
		t.Errorf("edited GPU: got %+v", g)
	}
}

func TestLeadingInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"143771 MiB", 143771}, {"16x", 16}, {"5", 5}, {"N/A", 0}, {"", 0}, {" 8x ", 8},
		{"99999999999999999999999 MiB", 0},
	}
	for _, tt := range tests {
		if got := leadingInt(tt.in); got != tt.want {
			t.Errorf("leadingInt(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// FuzzParseSMI: any input gives a report or an error, never a panic.
func FuzzParseSMI(f *testing.F) {
	f.Add(readH200(f))
	f.Add([]byte("<nvidia_smi_log><gpu><fb_memory_usage><total>1 MiB</total></fb_memory_usage></gpu></nvidia_smi_log>"))
	f.Add([]byte("<nvidia_smi_log><gpu id='x'/><gpu/></nvidia_smi_log>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSMI(b)
		if err != nil {
			return
		}
		for _, g := range s.GPUs {
			if g.MemoryMiB < 0 || g.PCIeWidth < 0 || len(g.Name) > 200 {
				t.Errorf("implausible GPU %+v", g)
			}
		}
	})
}
