package skypilot_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/feeds/registry"
	"github.com/gpuscout/gpuscout/internal/feeds/skypilot"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func TestConformance(t *testing.T) {
	src := registry.Lookup("skypilot")
	dir := shareddata.Dir(t)
	rows := map[string]int{}
	for _, f := range src.(*skypilot.Feed).Files {
		fh, err := os.Open(filepath.Join(dir, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(fh).ReadAll()
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		rows[f.Path] = len(recs) - 1
	}
	feedstest.Run(t, src, feedstest.Want{Rows: rows})
}
