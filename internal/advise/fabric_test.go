package advise

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// TestNetBusBW: the across-node bus bandwidth of an all-reduce, worked by
// hand from the published nccl-tests figures fabrics.yaml records.
func TestNetBusBW(t *testing.T) {
	f := testComm(t).fabrics
	for _, tc := range []struct {
		name     string
		kind     string
		gbps     float64
		nodes    int
		msgBytes float64
		want     float64
		note     []string
	}{
		// EFA, 10 × p5.48xlarge (3200 Gbps), Llama-3-8B sharded a layer at a
		// time: 2 B × 8.03e9/32 = 501.875 MB = 478.6 MiB. The nearest
		// measured row is 8 nodes (log2 10 = 3.32): 232.09 GB/s at 256 MiB,
		// 272.62 at 512 (aws-p5-nccl-hyperpod@4fdb5a4f); at 478.6 MiB:
		// 232.09 + (log2 478.6 − 8) × 40.53 = 268.678…; same NICs, so as measured.
		{"EFA p5 × 10, 8B layers", catalog.NetEFA, 3200, 10, 2 * 8.03e9 / 32, 232.09 + (math.Log2(2*8.03e9/32/(1<<20))-8)*(272.62-232.09),
			[]string{"8 nodes of AWS p5.48xlarge", "aws-p5-nccl-hyperpod@4fdb5a4f"}},
		// InfiniBand, 4 × 8 H100 on 8 × 400 Gb/s (Azure ND H100 v5's NICs):
		// Voltage Park's 4-node run, 324.48 GB/s at 1 GiB.
		{"InfiniBand × 4 at 1 GiB", catalog.NetInfiniBand, 3200, 4, 1 << 30, 324.48, []string{"voltagepark-nccl-allreduce@e55fe749"}},
		// TCPXO, 2 × a3-megagpu-8g (1800 Gbps): 213.19 GB/s at 256 MiB.
		{"TCPXO × 2 at 256 MiB", catalog.NetTCPXO, 1800, 2, 256 << 20, 213.19, []string{"gcp-a3mega-nccl-ztan@02dd8f45"}},
		// TCPXO × 8: only 2 nodes are measured, and the plan says so.
		{"TCPXO × 8", catalog.NetTCPXO, 1800, 8, 8 << 30, 338.82, []string{"measured on 2 nodes, 8 may see less"}},
		// EFA, 4 × p4d.24xlarge (400 Gbps, an eighth of p5's): p5's 4-node row,
		// 280.30 at 1 GiB, 356.99 at most; 1/b′ = (1/280.30 − 1/356.99) +
		// 8/356.99 → 43.148… GB/s.
		{"EFA p4d × 4 at 1 GiB", catalog.NetEFA, 400, 4, 1 << 30, 1 / ((1/280.30 - 1/356.99) + 8/356.99), []string{"scaled by 400/3200 Gbps"}},
		// GPUDirect-TCPX has no published result: EFA's curve, said; its
		// scaled figure 1/(3.2/477.71) = 149.3 GB/s passes the node's 1000
		// Gbps (125 GB/s), which a ring cannot: held there.
		{"TCPX borrows EFA", catalog.NetTCPX, 1000, 2, 8 << 30, 125, []string{"no published result for gpudirect-tcpx", "held to the node's 1000 Gbps line rate"}},
		// p4d × 2 at 8 GiB: 1/(8/477.71) = 59.7 GB/s above its 400 Gbps = 50 GB/s.
		{"EFA p4d × 2 at 8 GiB", catalog.NetEFA, 400, 2, 8 << 30, 50, []string{"held to the node's 400 Gbps line rate"}},
		// Below the smallest measured size, in proportion: 25 MiB at p5 × 8 =
		// 86.74 × 25/32.
		{"EFA p5 × 8 at 25 MiB", catalog.NetEFA, 3200, 8, 25 << 20, 86.74 * 25 / 32, nil},
	} {
		got, note := f.netBusBW(tc.kind, tc.gbps, tc.nodes, tc.msgBytes)
		if math.Abs(got-tc.want) > 1e-9*tc.want {
			t.Errorf("%s: %g GB/s, want %g", tc.name, got, tc.want)
		}
		for _, w := range tc.note {
			if !strings.Contains(note, w) {
				t.Errorf("%s: note %q lacks %q", tc.name, note, w)
			}
		}
	}
}

func TestLoadFabricsRefuses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"fabrics:\n  - {kind: myrinet, source: s, what: w, gpus_per_node: 8, node_gbps: 1, rows: [{nodes: 2, busbw: {32: 1}}]}\n", `kind "myrinet"`},
		{"fabrics:\n  - {kind: efa, source: s, what: w, gpus_per_node: 8, node_gbps: 1, rows: [{nodes: 2, busbw: {32: 0}}]}\n", "busbw 0 at 32 MiB"},
		{"fabrics:\n  - {kind: efa, source: '', what: w, gpus_per_node: 8, node_gbps: 1, rows: [{nodes: 2, busbw: {32: 1}}]}\n", "needs a source"},
		{"fabrics:\n  - {kind: efa, source: s, what: w, gpus_per_node: 8, node_gbps: 1, rows: [{nodes: 1, busbw: {32: 1}}]}\n", "nodes ≥ 2"},
		{"fabrics:\n  - {kind: infiniband, source: s, what: w, gpus_per_node: 8, node_gbps: 1, rows: [{nodes: 2, busbw: {32: 1}}]}\n", "efa is needed"},
		{"fabrics:\n  - {kind: efa, source: s, what: w, gpus_per_node: 8, node_gbps: 1, rows: [{nodes: 2, busbw: {32: 1}}], extra: 1}\n", "extra"},
	} {
		if _, err := loadFabrics([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("loadFabrics(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestFabricSourcesCited: every fabric's source is in the catalog's sources.
func TestFabricSourcesCited(t *testing.T) {
	a := advisor(t, "USD")
	for kind, f := range a.Scenarios.Comm.fabrics {
		if s := a.Catalog.Source(f.Source); s == nil || s.URL == "" {
			t.Errorf("%s: source %q is not in sources.yaml with a URL", kind, f.Source)
		}
	}
}
