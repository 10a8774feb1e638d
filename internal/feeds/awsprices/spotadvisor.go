package awsprices

// Spot Advisor data (spot-advisor-data.json): per region, OS and instance
// type, the advertised saving against on-demand and the band of monthly
// interruption frequency (<5%, 5-10%, ... >20%).

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Range is one interruption-frequency band.
type Range struct {
	Index int    `json:"index"`
	Label string `json:"label"`
	Max   int    `json:"max"`
}

// Entry is the advice for one instance type in one region and OS.
type Entry struct {
	Region       string
	OS           string
	InstanceType string
	SavingsPct   int
	Range        Range
	Low, High    float64 // the band in percent, parsed from its label
}

// SpotAdvisor is a parsed spot-advisor-data.json.
type SpotAdvisor struct {
	GlobalRate string
	Ranges     []Range
	Entries    []Entry // sorted by region, OS, instance type
}

// ParseSpotAdvisor reads spot-advisor-data.json.
func ParseSpotAdvisor(r io.Reader) (*SpotAdvisor, error) {
	var raw struct {
		GlobalRate string                                               `json:"global_rate"`
		Ranges     []Range                                              `json:"ranges"`
		Advisor    map[string]map[string]map[string]struct{ S, R *int } `json:"spot_advisor"`
	}
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, fmt.Errorf("spot advisor: %w", err)
	}
	if len(raw.Ranges) == 0 {
		return nil, fmt.Errorf("spot advisor: no ranges")
	}
	byIndex := map[int]Range{}
	for _, rg := range raw.Ranges {
		byIndex[rg.Index] = rg
	}
	d := &SpotAdvisor{GlobalRate: raw.GlobalRate, Ranges: raw.Ranges}
	for region, oses := range raw.Advisor {
		for os, types := range oses {
			for typ, v := range types {
				if v.S == nil || v.R == nil {
					return nil, fmt.Errorf("spot advisor: %s %s %s: missing s or r", region, os, typ)
				}
				if *v.S < 0 || *v.S > 100 {
					return nil, fmt.Errorf("spot advisor: %s %s %s: savings %d%%; want 0 to 100", region, os, typ, *v.S)
				}
				rg, ok := byIndex[*v.R]
				if !ok {
					return nil, fmt.Errorf("spot advisor: %s %s %s: range %d is not in ranges", region, os, typ, *v.R)
				}
				lo, hi, err := ParseBand(rg.Label)
				if err != nil {
					return nil, fmt.Errorf("spot advisor: range %d: %w", rg.Index, err)
				}
				d.Entries = append(d.Entries, Entry{Region: region, OS: os, InstanceType: typ, SavingsPct: *v.S, Range: rg, Low: lo, High: hi})
			}
		}
	}
	sort.Slice(d.Entries, func(i, j int) bool {
		a, b := d.Entries[i], d.Entries[j]
		if a.Region != b.Region {
			return a.Region < b.Region
		}
		if a.OS != b.OS {
			return a.OS < b.OS
		}
		return a.InstanceType < b.InstanceType
	})
	return d, nil
}

// ParseBand reads a band label ("<5%", "5-10%", ">20%", "10-15") as [low, high] percent; ">20%" is [20, 100].
func ParseBand(s string) (float64, float64, error) {
	t := strings.TrimSuffix(strings.TrimSpace(s), "%")
	bad := fmt.Errorf("band %q: want <5%%, 5-10%%, 10-15%%, 15-20%% or >20%% (or any LOW-HIGH%%)", s)
	switch {
	case strings.HasPrefix(t, "<"):
		hi, err := strconv.ParseFloat(strings.TrimSpace(t[1:]), 64)
		if err != nil || !(hi > 0 && hi <= 100) {
			return 0, 0, bad
		}
		return 0, hi, nil
	case strings.HasPrefix(t, ">"):
		lo, err := strconv.ParseFloat(strings.TrimSpace(t[1:]), 64)
		if err != nil || !(lo >= 0 && lo < 100) {
			return 0, 0, bad
		}
		return lo, 100, nil
	}
	a, b, ok := strings.Cut(t, "-")
	if !ok {
		return 0, 0, bad
	}
	lo, err1 := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(a, "%")), 64)
	hi, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if err1 != nil || err2 != nil || !(lo >= 0 && hi > lo && hi <= 100) {
		return 0, 0, bad
	}
	return lo, hi, nil
}
