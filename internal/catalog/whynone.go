package catalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// WhyNone says why q selects no offering, in the words of the filter that
// empties it: the GPU counts instances of the GPU are sold with (for a
// count none has), the GPU an instance type has (for an instance type and
// a GPU that do not meet), else that nothing matches every filter. A query
// that selects something gets "".
func (c *Catalog) WhyNone(q Query) string {
	rows, err := c.Query(q)
	if err != nil || len(rows) > 0 {
		return ""
	}
	gpus := gpuWords(q.GPUs)
	if q.GPUCount > 0 && len(q.GPUs) > 0 {
		loose := q
		loose.GPUCount, loose.AllRegions = 0, true
		if rows, err := c.Query(loose); err == nil && len(rows) > 0 {
			var counts []float64
			for _, r := range rows {
				counts = append(counts, r.Offering.GPUCount)
			}
			slices.Sort(counts)
			counts = slices.Compact(counts)
			var words []string
			for _, n := range counts {
				words = append(words, strconv.FormatFloat(n, 'g', -1, 64))
			}
			return fmt.Sprintf("no offering has %s × %s; instances that match the other filters have %s of them (ask for one of those counts, or for several instances with --instances)",
				strconv.FormatFloat(q.GPUCount, 'g', -1, 64), gpus, strings.Join(words, ", "))
		}
	}
	if len(q.InstanceTypes) > 0 && len(q.GPUs) > 0 {
		loose := q
		loose.GPUs, loose.GPUCount, loose.AllRegions = nil, 0, true
		if rows, err := c.Query(loose); err == nil && len(rows) > 0 {
			o := rows[0].Offering
			return fmt.Sprintf("%s/%s has %g × %s, not %s", o.Provider, o.InstanceType, o.GPUCount, o.GPU.Name, gpus)
		}
	}
	return "no offering matches every filter given (GPU, count, provider, region, China); loosen one"
}

// gpuWords names the GPUs a query asks for: one or two by name, more by
// the family they share ("A100 (any of its 6 variants)").
func gpuWords(gs []*GPU) string {
	var names []string
	for _, g := range gs {
		names = append(names, g.Name)
	}
	if len(names) <= 2 {
		return strings.Join(names, " or ")
	}
	family, _, _ := strings.Cut(names[0], "-")
	for _, n := range names[1:] {
		if f, _, _ := strings.Cut(n, "-"); f != family {
			return strings.Join(names, " or ")
		}
	}
	return fmt.Sprintf("%s (any of its %d variants)", family, len(names))
}
