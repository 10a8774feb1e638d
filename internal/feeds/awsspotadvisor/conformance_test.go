package awsspotadvisor_test

import (
	"encoding/json"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds/awsspotadvisor"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/feeds/registry"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func TestConformance(t *testing.T) {
	src := registry.Lookup("awsspotadvisor")
	path := src.(*awsspotadvisor.Feed).Path
	var raw struct {
		Advisor map[string]map[string]map[string]json.RawMessage `json:"spot_advisor"`
	}
	if err := json.NewDecoder(shareddata.Open(t, path)).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, oses := range raw.Advisor {
		for _, types := range oses {
			n += len(types)
		}
	}
	feedstest.Run(t, src, feedstest.Want{Rows: map[string]int{path: n}})
}
