package tencentdocs_test

import (
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/tencentdocs"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// realInputs returns the real pages in a MapFS, with edit applied to one.
func realInputs(t *testing.T, path string, edit func(string) string) feeds.Inputs {
	t.Helper()
	fsys := fstest.MapFS{}
	for _, p := range []string{files.List.Path, files.CVM.Path, files.Overview.Path} {
		b, err := io.ReadAll(shareddata.Open(t, p))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if p == path {
			s = edit(s)
		}
		fsys[p] = &fstest.MapFile{Data: []byte(s)}
	}
	return feeds.Inputs{Shared: fsys}
}

// TestReadNamesTheFileTheLineAndTheValue: a broken page stops the feed
// with an error naming the file, the line and the value; never a partial
// result.
func TestReadNamesTheFileTheLineAndTheValue(t *testing.T) {
	for _, tc := range []struct {
		path, old, new, want string
	}{
		{files.List.Path, "GN8.LARGE56,P40 x1,3520,4400,12.07,15.09", "GN8.LARGE56,P40 x1,3520,4400,12.07,15,09",
			files.List.Path + ": record on line 14: wrong number of fields"},
		{files.List.Path, "GN8.LARGE56,P40 x1,3520,4400,12.07,15.09", "GN8.LARGE56,P40 x1,3520,4400,12.07,",
			files.List.Path + `: line 14: hourly_cny_high "" is not a price`},
		{files.CVM.Path, `| GN10X\.2XLARGE40   | 8\-core   | 40GB  | Intel Xeon Skylake 6133\(2\.5 GHz\) | 2\.68USD/hr  |`,
			`| GN10X\.2XLARGE40   | 8\-core   | 40GB  | Intel Xeon Skylake 6133\(2\.5 GHz\) | 2\.6 8USD/hr  |`,
			files.CVM.Path + `: line 161: Fee "2.6 8USD/hr"`},
		{files.Overview.Path, "| GN10Xp.2XLARGE40   | 1                        | 32 GB     | 10 cores | 40 GB  | 1.72 USD/hr  |", "| GN10Xp.2XLARGE40   | 1",
			files.Overview.Path + `: line 62: table row "| GN10Xp.2XLARGE40   | 1" ends without its closing`},
	} {
		in := realInputs(t, tc.path, func(s string) string {
			if !strings.Contains(s, tc.old) {
				t.Fatalf("%s has no %q", tc.path, tc.old)
			}
			return strings.Replace(s, tc.old, tc.new, 1)
		})
		res, err := feed().Read(in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || res != nil {
			t.Errorf("%s: err = %v (result %v); want %q", tc.path, err, res != nil, tc.want)
		}
	}
	// A truncated page: the CVM page cut after its Frankfurt rows.
	in := realInputs(t, files.CVM.Path, func(s string) string { return s[:strings.LastIndex(s, "[Back to Top]")] })
	if _, err := feed().Read(in); err == nil || !strings.Contains(err.Error(), files.CVM.Path+`: at the end of the file: section "Frankfurt"`) {
		t.Errorf("truncated CVM page: err = %v", err)
	}
}

func TestNewRefusesUncitedFiles(t *testing.T) {
	bad := files
	bad.CVM.AsOf = "2020-05"
	if _, err := tencentdocs.New(bad).Read(feeds.Inputs{Shared: fstest.MapFS{}}); err == nil || !strings.Contains(err.Error(), "as-of date YYYY-MM-DD") {
		t.Errorf("as-of 2020-05: err = %v", err)
	}
	bad = files
	bad.List.Source = ""
	if _, err := tencentdocs.New(bad).Read(feeds.Inputs{Shared: fstest.MapFS{}}); err == nil || !strings.Contains(err.Error(), "source id") {
		t.Errorf("no source id: err = %v", err)
	}
}
