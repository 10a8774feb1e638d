package gcpprices_test

import (
	"encoding/json"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/feeds/gcpprices"
	"github.com/gpuscout/gpuscout/internal/feeds/registry"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func TestConformance(t *testing.T) {
	src := registry.Lookup("gcpprices")
	path := src.(*gcpprices.Feed).Path
	var raw struct {
		Instance map[string]struct {
			Cost map[string]json.RawMessage `json:"cost"`
		} `json:"instance"`
	}
	if err := json.NewDecoder(shareddata.Open(t, path)).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range raw.Instance {
		n += len(m.Cost) // one row per machine type and region
	}
	feedstest.Run(t, src, feedstest.Want{Rows: map[string]int{path: n}})
}
