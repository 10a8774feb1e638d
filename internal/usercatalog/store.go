package usercatalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/renameio/v2"
	"github.com/gpuscout/gpuscout/internal/catalog"
)

// Store is a user catalog folder.
type Store struct {
	Dir string
	// Keep is how many versions of a set are kept, the current one
	// included (0: DefaultKeep; at most MaxKeep).
	Keep int
}

// Bounds of Store.Keep.
const (
	DefaultKeep = 30
	MaxKeep     = 1000
)

// File names inside a set's folder and a version's folder.
const (
	CurrentFile = "CURRENT"
	MetaFile    = "meta.json"
	versionTime = "20060102T150405Z"
)

func (s *Store) keep() int {
	switch {
	case s.Keep <= 0:
		return DefaultKeep
	case s.Keep > MaxKeep:
		return MaxKeep
	}
	return s.Keep
}

func (s *Store) setDir(provider, key string) string { return filepath.Join(s.Dir, provider, key) }

// Write stores set as the new current version of its provider and region
// set, and returns the version's folder. Nothing the commands read changes
// until the last step, the rename of CURRENT; on any error before it the
// previous version stays current and the partial one is removed. Versions
// beyond Keep, oldest first, are removed afterwards.
func (s *Store) Write(set *Set) (string, error) {
	files, err := set.Snapshot.Encode()
	if err != nil {
		return "", err
	}
	meta, err := json.MarshalIndent(set.Meta, "", "  ")
	if err != nil {
		return "", err
	}
	files[MetaFile] = append(meta, '\n')
	var lic bytes.Buffer
	if err := catalog.WriteLicensesCSV(&lic, set.Snapshot.Licenses); err != nil {
		return "", err
	}
	files[catalog.LicensesFile] = lic.Bytes()
	dir := s.setDir(set.Meta.Provider, set.Key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	version := set.Meta.FetchedAt.UTC().Format(versionTime)
	for i := 2; exists(filepath.Join(dir, version)); i++ {
		version = fmt.Sprintf("%s-%d", set.Meta.FetchedAt.UTC().Format(versionTime), i)
	}
	tmp, err := os.MkdirTemp(dir, ".tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	for _, name := range sortedNames(files) {
		if err := writeFile(filepath.Join(tmp, name), files[name]); err != nil {
			return "", err
		}
	}
	final := filepath.Join(dir, version)
	if err := os.Rename(tmp, final); err != nil {
		return "", err
	}
	if err := renameio.WriteFile(filepath.Join(dir, CurrentFile), []byte(version+"\n"), 0o600); err != nil { // synced temporary file, then a rename
		os.RemoveAll(final)
		return "", err
	}
	set.Version = version
	s.prune(dir)
	return final, nil
}

func sortedNames(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// writeSync writes a file and flushes it to disk.
func writeSync(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// versions lists a set folder's version folders, oldest first.
func versions(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out) // names start with the UTC fetch time
	return out, nil
}

// prune removes the oldest versions beyond Keep, never the current one.
func (s *Store) prune(dir string) {
	vs, err := versions(dir)
	if err != nil {
		return
	}
	cur, _ := current(dir)
	for len(vs) > s.keep() {
		if vs[0] != cur {
			os.RemoveAll(filepath.Join(dir, vs[0]))
		}
		vs = vs[1:]
	}
}

func current(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, CurrentFile))
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(string(b))
	if v == "" || strings.ContainsAny(v, `/\`) || strings.HasPrefix(v, ".") {
		return "", fmt.Errorf("%s: %q is not a version folder name", filepath.Join(dir, CurrentFile), v)
	}
	return v, nil
}

// setDirs lists every provider/key set folder (provider "" for all).
func (s *Store) setDirs(provider string) ([]string, error) {
	provs, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range provs {
		if !p.IsDir() || strings.HasPrefix(p.Name(), ".") || (provider != "" && p.Name() != provider) {
			continue
		}
		keys, err := os.ReadDir(filepath.Join(s.Dir, p.Name()))
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			if k.IsDir() && !strings.HasPrefix(k.Name(), ".") {
				out = append(out, filepath.Join(s.Dir, p.Name(), k.Name()))
			}
		}
	}
	return out, nil
}

// Current reads the current version of every set (of provider; "" for
// all), oldest fetch first, so that applying them in order lets the newest
// win. cat resolves GPU names. A set folder without a CURRENT file (a
// first refresh that failed) is skipped.
func (s *Store) Current(cat *catalog.Catalog, provider string) ([]*Set, error) {
	dirs, err := s.setDirs(provider)
	if err != nil {
		return nil, err
	}
	var out []*Set
	for _, d := range dirs {
		v, err := current(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		set, err := ReadSet(cat, filepath.Join(d, v))
		if err != nil {
			return nil, err
		}
		out = append(out, set)
	}
	sortByFetch(out)
	return out, nil
}

// History reads every kept version of every set of provider ("" for all),
// oldest fetch first.
func (s *Store) History(cat *catalog.Catalog, provider string) ([]*Set, error) {
	dirs, err := s.setDirs(provider)
	if err != nil {
		return nil, err
	}
	var out []*Set
	for _, d := range dirs {
		vs, err := versions(d)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			set, err := ReadSet(cat, filepath.Join(d, v))
			if err != nil {
				return nil, err
			}
			out = append(out, set)
		}
	}
	sortByFetch(out)
	return out, nil
}

func sortByFetch(sets []*Set) {
	sort.SliceStable(sets, func(i, j int) bool { return sets[i].Meta.FetchedAt.Before(sets[j].Meta.FetchedAt) })
}

// ReadSet reads one version folder. cat resolves the GPU names of its
// offerings; errors name the file.
func ReadSet(cat *catalog.Catalog, dir string) (*Set, error) {
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	set := &Set{Snapshot: &catalog.Snapshot{}, Key: filepath.Base(filepath.Dir(dir)), Version: filepath.Base(dir)}
	b, err := read(MetaFile)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &set.Meta); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, MetaFile), err)
	}
	parse := func(name string, f func([]byte) error) error {
		b, err := read(name)
		if err != nil {
			return err
		}
		if err := f(b); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
		return nil
	}
	if err := parse(catalog.OfferingsFile, func(b []byte) (err error) {
		set.Snapshot.Offerings, err = cat.ReadOfferingsCSV(bytes.NewReader(b))
		return err
	}); err != nil {
		return nil, err
	}
	if err := parse(catalog.CommitmentsFile, func(b []byte) (err error) {
		set.Snapshot.Commitments, err = catalog.ReadCommitmentsCSV(bytes.NewReader(b))
		return err
	}); err != nil {
		return nil, err
	}
	if err := parse(catalog.SpotBandsFile, func(b []byte) (err error) {
		set.Snapshot.SpotBands, err = catalog.ReadSpotBandsCSV(bytes.NewReader(b))
		return err
	}); err != nil {
		return nil, err
	}
	if err := parse(catalog.LeftOutFile, func(b []byte) (err error) {
		set.Snapshot.LeftOut, err = catalog.ReadLeftOutCSV(bytes.NewReader(b))
		return err
	}); err != nil {
		return nil, err
	}
	if b, err := read(catalog.LicensesFile); err == nil { // sets written before licences have none
		if set.Snapshot.Licenses, err = catalog.ReadLicensesCSV(bytes.NewReader(b)); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, catalog.LicensesFile), err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if set.Meta.Provider == "" || set.Meta.FetchedAt.IsZero() {
		return nil, fmt.Errorf("%s: provider and fetched_at are required", filepath.Join(dir, MetaFile))
	}
	return set, nil
}

// writeFile writes one file of a new version (a variable so that a test can
// fail a refresh half-way).
var writeFile = writeSync
