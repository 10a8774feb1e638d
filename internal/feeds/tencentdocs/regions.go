package tencentdocs

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Region is a place as Tencent's international price pages name it, and
// the Tencent Cloud region it is.
type Region struct {
	Heading  string // the page's words: "Guangzhou", "Hongkong,China"
	Name     string // the region: "ap-guangzhou", "ap-hongkong"
	Mainland bool   // in mainland China, where the China site's list prices apply
}

// regions is the one table from the pages' region headings to region
// names (Tencent's 地域和可用区 page gives the names), in the order of the
// CVM price page. Every name is in the tencent block of
// internal/catalog/data/providers.yaml (a test says so).
var regions = []Region{
	{"Guangzhou", "ap-guangzhou", true},
	{"Shanghai", "ap-shanghai", true},
	{"Nanjing", "ap-nanjing", true},
	{"Beijing", "ap-beijing", true},
	{"Chengdu", "ap-chengdu", true},
	{"Chongqing", "ap-chongqing", true},
	{"Hongkong,China", "ap-hongkong", false},
	{"Singapore", "ap-singapore", false},
	{"Bangkok", "ap-bangkok", false},
	{"Mumbai", "ap-mumbai", false},
	{"Seoul", "ap-seoul", false},
	{"Tokyo", "ap-tokyo", false},
	{"Silicon Valley", "na-siliconvalley", false},
	{"Virginia", "na-ashburn", false},
	{"Toronto", "na-toronto", false},
	{"Frankfurt", "eu-frankfurt", false},
}

// Regions returns the heading table, in the CVM price page's order.
func Regions() []Region { return append([]Region(nil), regions...) }

// RegionForHeading returns the region a page heading names.
func RegionForHeading(heading string) (Region, bool) {
	for _, r := range regions {
		if r.Heading == heading {
			return r, true
		}
	}
	return Region{}, false
}

// regionNamed returns the table's entry of a region name.
func regionNamed(name string) (Region, bool) {
	for _, r := range regions {
		if r.Name == name {
			return r, true
		}
	}
	return Region{}, false
}

// headings lists the known headings, for error messages.
func headings() string {
	hs := make([]string, len(regions))
	for i, r := range regions {
		hs[i] = fmt.Sprintf("%q", r.Heading)
	}
	return strings.Join(hs, ", ")
}

var zonePlaceRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\S.*?) Zone ([1-9][0-9]?)$`) })

// ZoneForPlace reads a zone as the pages write it ("Guangzhou Zone 3")
// into its region and zone name ("ap-guangzhou", "ap-guangzhou-3").
func ZoneForPlace(place string) (region Region, zone string, err error) {
	m := zonePlaceRE().FindStringSubmatch(place)
	if m == nil {
		return Region{}, "", fmt.Errorf("%q is not a zone as the pages write one (want CITY Zone N, e.g. \"Guangzhou Zone 3\")", place)
	}
	r, ok := RegionForHeading(m[1])
	if !ok {
		return Region{}, "", fmt.Errorf("%q: unknown region %q; known: %s", place, m[1], headings())
	}
	return r, r.Name + "-" + m[2], nil
}
