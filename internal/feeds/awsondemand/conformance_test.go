package awsondemand_test

import (
	"encoding/csv"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds/awsondemand"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/feeds/registry"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func TestConformance(t *testing.T) {
	src := registry.Lookup("awsondemand")
	path := src.(*awsondemand.Feed).Path
	recs, err := csv.NewReader(shareddata.Open(t, path)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	feedstest.Run(t, src, feedstest.Want{Rows: map[string]int{path: len(recs) - 1}})
}
