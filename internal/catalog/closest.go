package catalog

import (
	"sort"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Closest returns up to n of names nearest to s by edit distance (case
// folded), for "did you mean" lists in error messages.
func Closest(s string, names []string, n int) []string {
	s = strings.ToLower(s)
	sorted := append([]string(nil), names...)
	sort.SliceStable(sorted, func(i, j int) bool {
		return levenshtein.ComputeDistance(s, strings.ToLower(sorted[i])) < levenshtein.ComputeDistance(s, strings.ToLower(sorted[j]))
	})
	if len(sorted) > n {
		sorted = sorted[:n]
	}
	return sorted
}
