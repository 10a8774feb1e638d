package catalog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/google/renameio/v2"
)

// Snapshot is what the catalog builder generates: the embedded CSV files
// (Encode), and from them the binary catalog (EncodeEmbedded).
type Snapshot struct {
	Offerings   []Offering
	Commitments []Commitment
	SpotBands   []SpotBand
	LeftOut     []LeftOutType // instance types a feed lists that the build left out, and why
	// Licenses are OS licence surcharges a feed priced (Azure's Windows
	// over Linux). The embedded ones are curated in data/licenses.yaml, so
	// Encode leaves them out; a user catalog set keeps them in LicensesFile.
	Licenses []LicenseSurcharge
}

// Snapshot file names inside internal/catalog/data.
const (
	OfferingsFile   = "offerings.csv"
	CommitmentsFile = "commitments.csv"
	SpotBandsFile   = "spot_bands.csv"
	LeftOutFile     = "left_out.csv"
)

// Encode renders the snapshot files, keyed by file name. Commitments are
// sorted by provider, type, region, model, term and payment so output is stable.
func (s *Snapshot) Encode() (map[string][]byte, error) {
	sort.SliceStable(s.Commitments, func(i, j int) bool {
		a, b := s.Commitments[i], s.Commitments[j]
		for _, p := range [][2]string{{a.Provider, b.Provider}, {a.InstanceType, b.InstanceType}, {a.Region, b.Region}, {a.Model, b.Model}, {a.Term, b.Term}, {a.Payment, b.Payment}, {a.Class, b.Class}} {
			if p[0] != p[1] {
				return p[0] < p[1]
			}
		}
		return false
	})
	out := map[string][]byte{}
	var buf bytes.Buffer
	if err := WriteOfferingsCSV(&buf, s.Offerings); err != nil {
		return nil, err
	}
	out[OfferingsFile] = bytes.Clone(buf.Bytes())
	buf.Reset()
	if err := WriteCommitmentsCSV(&buf, s.Commitments); err != nil {
		return nil, err
	}
	out[CommitmentsFile] = bytes.Clone(buf.Bytes())
	buf.Reset()
	if err := WriteSpotBandsCSV(&buf, s.SpotBands); err != nil {
		return nil, err
	}
	out[SpotBandsFile] = bytes.Clone(buf.Bytes())
	buf.Reset()
	if err := WriteLeftOutCSV(&buf, s.LeftOut); err != nil {
		return nil, err
	}
	out[LeftOutFile] = bytes.Clone(buf.Bytes())
	return out, nil
}

// EncodeEmbedded renders the embedded catalog's generated files: Encode's
// CSV files and, built from them and the embedded YAML tables, the binary
// catalog (BinaryFile) that Default decodes. The build command writes and
// checks these.
func (s *Snapshot) EncodeEmbedded() (map[string][]byte, error) {
	files, err := s.Encode()
	if err != nil {
		return nil, err
	}
	f := Embedded()
	f.Offerings, f.Commitments, f.SpotBands, f.LeftOut = files[OfferingsFile], files[CommitmentsFile], files[SpotBandsFile], files[LeftOutFile]
	b, err := EncodeBinary(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", BinaryFile, err)
	}
	files[BinaryFile] = b
	return files, nil
}

// Stale lists the snapshot files whose bytes differ from the embedded ones.
func Stale(files map[string][]byte) []string {
	emb := Embedded()
	embedded := map[string][]byte{OfferingsFile: emb.Offerings, CommitmentsFile: emb.Commitments, SpotBandsFile: emb.SpotBands, LeftOutFile: emb.LeftOut,
		BinaryFile: []byte(catalogBin)}
	var out []string
	for name, b := range files {
		if !bytes.Equal(b, embedded[name]) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// WriteDir writes the files into dir, each atomically (write then rename).
func WriteDir(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, b := range files {
		if err := renameio.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
