package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/google/renameio/v2"
)

// Every file a command writes for the user (--report, --chart, --out,
// --tests) goes through outputFiles: each is written to a temporary file in
// its own folder, synced, and renamed into place only when all of them have
// been written. A failure (a full disk, a file-size limit, an encoding
// error) leaves every old file as it was and no partial or temporary file
// behind. The rename replaces a symbolic link at the path with the new file;
// it never writes through the link into its target.

// outputFiles is a set of files written all or nothing.
type outputFiles struct {
	flag    string // the flag that named the files, for errors
	pending []*renameio.PendingFile
	paths   []string // where each pending file goes
}

// add writes one file of the set into a temporary file beside path.
// A path that names a folder, or whose folder is missing or not writable,
// is a usage error (exit 2); a failure while writing is not.
func (o *outputFiles) add(path string, write func(io.Writer) error) error {
	if st, err := os.Lstat(path); err == nil && st.IsDir() {
		return usagef("%s %s: is a folder; want a file name", o.flag, path)
	}
	f, err := renameio.NewPendingFile(path, renameio.WithPermissions(0o644))
	if err != nil {
		return usagef("%s %s: cannot create a file in its folder: %v", o.flag, path, err)
	}
	o.pending, o.paths = append(o.pending, f), append(o.paths, path)
	if err := write(f); err != nil {
		return fmt.Errorf("%s %s: %w (nothing was written)", o.flag, path, err)
	}
	return nil
}

// commit renames every file of the set into place, in the order added (a
// report's charts before the page that shows them).
func (o *outputFiles) commit() error {
	for i, f := range o.pending {
		if err := f.CloseAtomicallyReplace(); err != nil {
			path := o.paths[i]
			o.pending, o.paths = o.pending[i+1:], o.paths[i+1:]
			_ = f.Cleanup()
			return fmt.Errorf("%s %s: %w", o.flag, path, err)
		}
	}
	o.pending, o.paths = nil, nil
	return nil
}

// discard removes the temporary files of a set not committed; it is safe to
// call after commit (deferred).
func (o *outputFiles) discard() {
	for _, f := range o.pending {
		_ = f.Cleanup()
	}
	o.pending, o.paths = nil, nil
}

// writeOutputFile writes one file, all or nothing (outputFiles).
func writeOutputFile(flag, path string, write func(io.Writer) error) error {
	o := outputFiles{flag: flag}
	defer o.discard()
	if err := o.add(path, write); err != nil {
		return err
	}
	return o.commit()
}

// writeBytes is a write function for content already in memory.
func writeBytes(b []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}
}
