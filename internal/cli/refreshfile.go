package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// parseFile reads --from-file. Its prices are dated by the file's own data
// date (an AWS offer file's publicationDate, a spot price's timestamp, a
// GCP SKU's effectiveTime), or by --as-of where given; never by the file's
// modification time or today. A format that carries no date, read without
// --as-of, is a usage error naming the flag. The prices are cited as
// file:NAME@DATE, DATE being their own date. It returns the records and a
// line saying how they were dated.
func (f *refreshFlags) parseFile(im feeds.Importer, regions []string, now time.Time) (*feeds.Result, string, error) {
	if f.asOf != "" {
		d, err := time.Parse("2006-01-02", f.asOf)
		if err != nil {
			return nil, "", usagef("--as-of %q: want a date, YYYY-MM-DD (the day the file was downloaded)", f.asOf)
		}
		if d.After(now) {
			return nil, "", usagef("--as-of %s: a date in the future (today is %s); want the day the file was downloaded", f.asOf, now.Format("2006-01-02"))
		}
	}
	fh, err := os.Open(f.fromFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", usagef("--from-file %s: no such file", f.fromFile)
		}
		return nil, "", usagef("--from-file %s: %v", f.fromFile, err)
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && st.IsDir() {
		return nil, "", usagef("--from-file %s: a folder, want a file", f.fromFile)
	}
	name := filepath.Base(f.fromFile)
	src := "file:" + name
	o := feeds.ParseOptions{Source: src, AsOf: f.asOf, Origin: name}
	if len(regions) == 1 {
		o.Region = regions[0]
	}
	res, err := im.Parse(f.format, fh, o)
	if errors.Is(err, feeds.ErrNoDate) {
		return nil, "", usagef("--from-file %s (--format %s): %v; give the day you downloaded it with --as-of YYYY-MM-DD (never today's date nor the file's modification time)", f.fromFile, f.format, err)
	}
	if err != nil {
		return nil, "", usagef("--from-file %s (--format %s): %v", f.fromFile, f.format, err)
	}
	res.CiteByDate(src)
	dates := res.Dates()
	if len(dates) == 0 {
		return res, "", nil
	}
	if len(dates) == 1 && dates[0] == f.asOf {
		return res, fmt.Sprintf("Prices dated %s (--as-of).", f.asOf), nil
	}
	span := dates[0]
	if len(dates) > 1 {
		span += " to " + dates[len(dates)-1]
	}
	return res, fmt.Sprintf("Prices dated %s: the file's own date (--as-of sets another where the format allows).", span), nil
}
