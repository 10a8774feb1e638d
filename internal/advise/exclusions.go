package advise

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// Stages at which an offering family is left out, closest to a plan first.
const (
	stageRule       = iota // priced and within the constraints, dropped by a scenario rule
	stageConstraint        // priced, but over the budget, the deadline or the time the user has
	stageSize              // could not be sized or priced for the work
	stageFit               // scenario fit: memory, software stack, a GPU slice
	stageSpeed             // throughput unknown
	stagePrice             // no sourced price
)

var stageWords = map[int]string{
	stageRule: "scenario rules", stageConstraint: "constraints", stageSize: "sizing for the work",
	stageFit: "scenario fit (memory, software stack)", stageSpeed: "throughput unknown", stagePrice: "no sourced price",
}

// exclusions collects why offering families were left out, one reason per
// family (the first), with how close each came: its stage, then a key
// within it (the best total for rule drops, the relative margin missed for
// constraints).
type exclusions struct {
	m map[string]*exclusion
}

type exclusion struct {
	what, reason string
	stage        int
	key          float64
}

func familyKey(o *catalog.Offering) string {
	return fmt.Sprintf("%s ×%s (%s)", o.GPU.Name, fmtCount(o.GPUCount), o.Provider)
}

func (x *exclusions) add(o *catalog.Offering, reason string, stage int, key float64) {
	if x.m == nil {
		x.m = map[string]*exclusion{}
	}
	k := familyKey(o)
	if e, ok := x.m[k]; ok {
		if e.stage == stage {
			e.key = math.Min(e.key, key)
		}
		return
	}
	x.m[k] = &exclusion{what: k, reason: reason, stage: stage, key: key}
}

// list orders the exclusions closest first: by stage, then key, then name.
func (x *exclusions) list() []Excluded {
	es := make([]*exclusion, 0, len(x.m))
	for _, e := range x.m {
		es = append(es, e)
	}
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.stage != b.stage {
			return a.stage < b.stage
		}
		if a.key != b.key {
			return a.key < b.key
		}
		return a.what < b.what
	})
	out := make([]Excluded, len(es))
	for i, e := range es {
		out[i] = Excluded{What: e.what, Reason: e.reason}
	}
	return out
}

// whyNoneFits names why no offering could be priced at all: the stages
// the families fell at, with counts and the closest family's reason.
func (x *exclusions) whyNoneFits(considered int) string {
	if considered == 0 {
		return "no offering matches the selection (--provider, --region, --china); widen it"
	}
	count := map[int]int{}
	first := map[int]string{}
	for _, e := range x.list() {
		if count[e.stageOf(x)] == 0 {
			first[e.stageOf(x)] = e.What + ": " + e.Reason
		}
		count[e.stageOf(x)]++
	}
	if count[stagePrice] == len(x.m) {
		return fmt.Sprintf("none of the %d offering families considered has a sourced price; supply prices with --prices FILE", len(x.m))
	}
	var parts []string
	for s := stageRule; s <= stagePrice; s++ {
		if count[s] > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d %s (closest: %s)", stageWords[s], count[s], map[bool]string{true: "family", false: "families"}[count[s] == 1], first[s]))
		}
	}
	return "no offering could be priced for this work: " + strings.Join(parts, "; ")
}

// stageOf finds an Excluded's stage by its family.
func (e Excluded) stageOf(x *exclusions) int {
	if v, ok := x.m[e.What]; ok {
		return v.stage
	}
	return stagePrice
}
