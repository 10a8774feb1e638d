package advise

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"slices"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

//go:embed fabrics.yaml
var fabricsYAML []byte

// fabric is one network fabric's published NCCL all-reduce results
// (fabrics.yaml): the bus bandwidth its cluster measured, by node count and
// message size.
type fabric struct {
	Kind        string      `yaml:"kind"`
	Source      string      `yaml:"source"`
	What        string      `yaml:"what"`
	GPUsPerNode int         `yaml:"gpus_per_node"`
	NodeGbps    float64     `yaml:"node_gbps"`
	Rows        []fabricRow `yaml:"rows"`
}

// fabricRow is one node count's curve: busbw (GB/s per GPU) by message
// size in MiB.
type fabricRow struct {
	Nodes int                 `yaml:"nodes"`
	BusBW map[float64]float64 `yaml:"busbw"`

	sizes []float64 // the curve's sizes, ascending
}

// fabricTable is every measured fabric by kind.
type fabricTable map[string]*fabric

// loadFabrics parses fabrics.yaml and checks it: every fabric a known
// network kind, a source, a node size, at least one row; every figure above 0.
func loadFabrics(b []byte) (fabricTable, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var doc struct {
		Fabrics []*fabric `yaml:"fabrics"`
	}
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("fabrics.yaml: %w", err)
	}
	t := fabricTable{}
	for _, f := range doc.Fabrics {
		switch {
		case !slices.Contains(catalog.NetworkKinds, f.Kind) || f.Kind == catalog.NetworkUnknown:
			return nil, fmt.Errorf("fabrics.yaml: kind %q is not a network kind (%v)", f.Kind, catalog.NetworkKinds)
		case t[f.Kind] != nil:
			return nil, fmt.Errorf("fabrics.yaml: %s given twice", f.Kind)
		case f.Source == "" || !(f.NodeGbps > 0) || f.GPUsPerNode < 1 || len(f.Rows) == 0:
			return nil, fmt.Errorf("fabrics.yaml: %s needs a source, node_gbps, gpus_per_node and rows", f.Kind)
		}
		for i := range f.Rows {
			r := &f.Rows[i]
			if r.Nodes < 2 || len(r.BusBW) == 0 {
				return nil, fmt.Errorf("fabrics.yaml: %s: a row needs nodes ≥ 2 and its busbw", f.Kind)
			}
			for size, v := range r.BusBW {
				if !(size > 0) || !(v > 0) {
					return nil, fmt.Errorf("fabrics.yaml: %s %d nodes: busbw %g at %g MiB; want both above 0", f.Kind, r.Nodes, v, size)
				}
				r.sizes = append(r.sizes, size)
			}
			sort.Float64s(r.sizes)
		}
		sort.Slice(f.Rows, func(i, j int) bool { return f.Rows[i].Nodes < f.Rows[j].Nodes })
		t[f.Kind] = f
	}
	if t[catalog.NetEFA] == nil {
		return nil, fmt.Errorf("fabrics.yaml: efa is needed: fabrics without results borrow its curve")
	}
	return t, nil
}

// row is the measured row nearest to nodes in log scale (the largest
// beyond the largest).
func (f *fabric) row(nodes int) *fabricRow {
	best := &f.Rows[0]
	for i := range f.Rows {
		r := &f.Rows[i]
		if math.Abs(math.Log2(float64(r.Nodes))-math.Log2(float64(nodes))) < math.Abs(math.Log2(float64(best.Nodes))-math.Log2(float64(nodes))) {
			best = r
		}
	}
	return best
}

// at is the row's busbw at a message of mib MiB: interpolated in log2 of
// the size between measured sizes; the largest size's figure above it;
// proportional to the size below the smallest (latency-bound).
func (r *fabricRow) at(mib float64) float64 {
	lo, hi := r.sizes[0], r.sizes[len(r.sizes)-1]
	switch {
	case mib <= lo:
		return r.BusBW[lo] * mib / lo
	case mib >= hi:
		return r.BusBW[hi]
	}
	i := sort.SearchFloat64s(r.sizes, mib)
	a, b := r.sizes[i-1], r.sizes[i]
	if mib == b {
		return r.BusBW[b]
	}
	t := (math.Log2(mib) - math.Log2(a)) / (math.Log2(b) - math.Log2(a))
	return r.BusBW[a] + t*(r.BusBW[b]-r.BusBW[a])
}

// max is the row's largest busbw: its bandwidth-bound figure.
func (r *fabricRow) max() float64 {
	m := 0.0
	for _, v := range r.BusBW {
		m = math.Max(m, v)
	}
	return m
}

// netBusBW is a multi-node all-reduce's bus bandwidth (GB/s per GPU) across
// nodes on kind, each with nodeGbps of NICs, for messages of msgBytes, with
// the explanation. The measured figure b at that size is time per byte
// 1/b = (1/b − 1/b_max) + 1/b_max: an overhead that does not depend on the
// NICs plus the bandwidth part, which scales with them: for NICs of A Gbps
// where the measured nodes had A_ref, 1/b′ = (1/b − 1/b_max) + (A_ref/A)/b_max.
// A kind without published results borrows efa's curve and says so.
func (t fabricTable) netBusBW(kind string, nodeGbps float64, nodes int, msgBytes float64) (float64, string) {
	f, measured := t[kind], true
	if f == nil {
		f, measured = t[catalog.NetEFA], false
	}
	r := f.row(nodes)
	mib := msgBytes / (1 << 20)
	b, bmax := r.at(mib), r.max()
	v := 1 / ((1/b - 1/bmax) + (f.NodeGbps/nodeGbps)/bmax)
	// The measured cluster may beat its own NICs (NVLink SHARP and trees
	// reduce inside the node first); a scaled node is held to its line
	// rate, all its NICs together, which a ring cannot pass.
	capped := false
	if line := nodeGbps / 8; nodeGbps != f.NodeGbps && v > line {
		v, capped = line, true
	}
	note := fmt.Sprintf("%.4g GB/s all-reduce bus bandwidth at %s messages: nccl-tests on %d nodes of %s (%s) measured %.4g GB/s there (%.4g at its largest), its bandwidth part scaled by %g/%g Gbps",
		v, fmtBytes(msgBytes), r.Nodes, f.What, f.Source, b, bmax, nodeGbps, f.NodeGbps)
	if capped {
		note += fmt.Sprintf(", held to the node's %g Gbps line rate", nodeGbps)
	}
	switch {
	case !measured:
		what := "a fabric no source names"
		if kind != "" {
			what = kind
		}
		note += fmt.Sprintf("; no published result for %s, so efa's curve is an assumption", what)
	case nodes > r.Nodes*3/2:
		note += fmt.Sprintf("; measured on %d nodes, %d may see less", r.Nodes, nodes)
	}
	return v, note
}
