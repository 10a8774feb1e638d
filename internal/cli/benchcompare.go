package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/render"
)

func newBenchCompareCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compare REPORT.json [REPORT.json ...]",
		Short: "Compare bench reports side by side, with efficiency against the datasheet",
		Long: `Compare reports written by 'gpuscout bench' side by side: one row per
measurement and device, one column per report, each cell the measured value
with its efficiency against the GPU's datasheet figure in brackets, computed
from the value (never the one the file stores). A figure more than twice its
datasheet figure is refused; one above the datasheet gets a warning.`,
		Example: "  gpuscout bench compare aws-p5e.json azure-nd-h200.json\n  gpuscout bench compare *.json -o json",
		Args:    cobra.MinimumNArgs(1),
	}
	getFormat := outputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		cat, err := catalog.Default()
		if err != nil {
			return err
		}
		docs := make([]*benchreport.Document, len(args))
		for i, path := range args {
			if docs[i], err = readDocument(path); err != nil {
				return err
			}
			// Figures are checked against the datasheet as advise --bench
			// and the server check them: far above it is refused.
			warnings, err := docs[i].CheckDatasheet(cat)
			if err != nil {
				return usagef("%s: %v", path, err)
			}
			for _, w := range warnings {
				fmt.Fprintf(e.stderr, "warning: %s: %s\n", path, w)
			}
		}
		c := compareReports(args, docs, cat)
		return e.write(format, c.table(), c)
	}
	return cmd
}

// readDocument reads a bench report; a missing file or another format is a
// usage error naming the file.
func readDocument(path string) (*benchreport.Document, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, usagef("%s: no such file", path)
	}
	if err != nil {
		return nil, err
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(b, &probe) == nil && probe["schema_version"] == nil {
		return nil, usagef("%s: not a gpuscout bench report (no schema_version); compare reads the reports 'gpuscout bench' writes", path)
	}
	d, err := benchreport.DecodeDocument(bytes.NewReader(b))
	if err != nil {
		return nil, usagef("%s: %v", path, err)
	}
	return d, nil
}

// comparison is bench compare's result (its -o json form).
type comparison struct{ *benchreport.Comparison }

// MarshalJSON writes the comparison itself.
func (c *comparison) MarshalJSON() ([]byte, error) { return json.Marshal(c.Comparison) }

func compareReports(files []string, docs []*benchreport.Document, cat *catalog.Catalog) *comparison {
	return &comparison{benchreport.Compare(files, docs, cat)}
}

func (c *comparison) table() *render.Table {
	t := &render.Table{Wrap: 100, Columns: []render.Column{{Header: "MEASUREMENT"}, {Header: "DEVICE"}, {Header: "UNIT"}}}
	for i, r := range c.Reports {
		t.Columns = append(t.Columns, render.Column{Header: fmt.Sprintf("[%d] %s", i+1, filepath.Base(r.File)), Right: true, Mixed: true})
		what := "host CPU " + r.Host.CPUModel
		if len(r.GPUs) > 0 {
			what = fmt.Sprintf("%d× %s", len(r.GPUs), r.GPUs[0].Name)
		}
		where := r.Host.Hostname
		if r.Cloud != nil {
			where = fmt.Sprintf("%s %s %s", r.Cloud.Provider, r.Cloud.InstanceType, r.Cloud.Region)
		}
		t.Notes = append(t.Notes, fmt.Sprintf("[%d] %s: %s on %s, %s", i+1, r.File, what, where, r.CreatedAt))
	}
	t.Rows = render.ComparisonRows(c.Comparison)
	t.Notes = append(t.Notes, render.ComparisonNote)
	return t
}
