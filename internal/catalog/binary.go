package catalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// The embedded catalog in binary form, data/catalog.bin.
//
// Decoding the YAML and CSV text of the catalog was most of a short
// command's time, so the catalog generator ('gpuscout catalog build', run by
// 'go generate ./internal/catalog') also writes the parsed catalog in a
// compact binary form, and Default and GPUTable decode that instead. The
// text files stay the reviewed source of truth in git and in the binary
// (the generator and ParseSpecs read them): EncodeBinary parses them with
// Parse, with every check Parse makes, and writes what it got; tests check
// that the embedded blob is what EncodeBinary writes now and that it
// decodes to exactly (reflect.DeepEqual) what Parse gives. The header
// carries checksums of the text files the blob was built from, and a blob
// built from other files, or in another format, is refused with an error
// saying how to rebuild it.
//
// Layout (integers little-endian; uv: unsigned varint; sv: zigzag varint):
//
//	header    "gpuscat\x00", format version u32, CRC-32 (IEEE) of gpus.yaml
//	          u32, CRC-32 of all nine text files (each after its length as
//	          u32, in Files' order) u32, section count u32, then each
//	          section's offset u32 and length u32; the sections follow in
//	          this order, back to back, to the blob's last byte
//	strings   uv n, n+1 u32 offsets into the data that follows, the data:
//	          every distinct string once; string i (1..n) is
//	          data[off[i-1]:off[i]], a substring of the blob (no copy: the
//	          blob is embedded as a Go string); index 0 is ""
//	decimals  uv n+1, then n entries: kind 1, sv coefficient, sv exponent
//	          (decimal.New), or kind 2, string index of a coefficient too
//	          large for an int64, sv exponent; a decimal field is an index
//	          into this table, 0 for the zero decimal.Decimal{}
//	gpus, providers, sources, egress, licenses, offerings, commitments,
//	spot bands, left out
//	          each one table: uv count+1 (0: a nil slice), then its records
//	          field by field (binary_records.go): a string as its uv index, a
//	          float as uv 2x for a whole x up to 2^53 or uv 1 and its eight
//	          IEEE 754 bytes, a bool as one byte, a *GPU as uv index+1 into
//	          the GPU table (0: nil), a slice or map as uv count+1 (0: nil;
//	          maps in key order), a pointer to a struct as a bool then the struct;
//	          the GPU table is followed by its name index (Catalog.gpuIndex):
//	          uv keys, uv references in all, then each normalized name (in
//	          order) with uv count and its GPUs
//
// Strings and decimals are numbered by how often the records use them, so
// that most references take one byte.
//
// A command decodes only the sections it reads: GPUTable the strings'
// offsets and the GPU table; Default all of them. Decoding repeats none of
// Parse's checks (sources cited, estimates, egress tiers): the blob holds
// a catalog Parse accepted, checked once, when it was written; a damaged
// blob gives an error, never a panic.
const (
	binMagic   = "gpuscat\x00"
	binVersion = 1
	headerLen  = len(binMagic) + 4*4
)

// Sections of the binary catalog, in file order.
const (
	secStrings = iota
	secDecimals
	secGPUs
	secProviders
	secSources
	secEgress
	secLicenses
	secOfferings
	secCommitments
	secSpotBands
	secLeftOut
	numSections
)

var sectionNames = [numSections]string{"strings", "decimals", "gpus", "providers", "sources", "egress", "licenses", "offerings", "commitments", "spot bands", "left out"}

// BinaryFile is the binary catalog's file name inside internal/catalog/data.
const BinaryFile = "catalog.bin"

// binSums are the checksums of the text files a blob was built from.
type binSums struct {
	gpus uint32 // gpus.yaml alone: all the GPU table depends on
	all  uint32 // every text file
}

// textSums computes the checksums of f. CRC-32 (IEEE, hardware-assisted)
// reads the ~700 KB in some tens of microseconds; it tells a changed file
// from the one the blob was built from, which is all it is for.
func textSums(f Files) binSums {
	s := binSums{gpus: crc32.ChecksumIEEE(f.GPUs)}
	var n [4]byte
	for _, b := range [][]byte{f.GPUs, f.Providers, f.Sources, f.Egress, f.Licenses, f.Offerings, f.Commitments, f.SpotBands, f.LeftOut} {
		binary.LittleEndian.PutUint32(n[:], uint32(len(b)))
		s.all = crc32.Update(s.all, crc32.IEEETable, n[:])
		s.all = crc32.Update(s.all, crc32.IEEETable, b)
	}
	return s
}

// EncodeBinary parses the text files f (Parse, with all its checks) and
// returns the catalog in binary form, as data/catalog.bin holds it.
func EncodeBinary(f Files) ([]byte, error) {
	c, err := Parse(f)
	if err != nil {
		return nil, err
	}
	return encodeBinary(c, textSums(f))
}

// encodeBinary writes c; the same catalog always gives the same bytes.
func encodeBinary(c *Catalog, sums binSums) ([]byte, error) {
	e := newBinEncoder()
	for i, g := range c.GPUs {
		if g == nil {
			return nil, fmt.Errorf("catalog.bin: GPU %d is nil", i)
		}
		e.gpuIdx[g] = uint64(i + 1)
	}
	for i, p := range c.Providers {
		if p == nil {
			return nil, fmt.Errorf("catalog.bin: provider %d is nil", i)
		}
	}
	writeSections(c, e) // the first pass: what the tables hold
	e.order()
	secs := writeSections(c, e)
	if e.err != nil {
		return nil, fmt.Errorf("catalog.bin: %w", e.err)
	}
	st := &binWriter{e: e}
	st.uv(uint64(len(e.strs)))
	var off uint32
	st.b = binary.LittleEndian.AppendUint32(st.b, 0)
	for _, s := range e.strs {
		off += uint32(len(s))
		st.b = binary.LittleEndian.AppendUint32(st.b, off)
	}
	for _, s := range e.strs {
		st.b = append(st.b, s...)
	}
	secs[secStrings] = st.b

	out := make([]byte, 0, headerLen+8*numSections)
	out = append(out, binMagic...)
	out = binary.LittleEndian.AppendUint32(out, binVersion)
	out = binary.LittleEndian.AppendUint32(out, sums.gpus)
	out = binary.LittleEndian.AppendUint32(out, sums.all)
	out = binary.LittleEndian.AppendUint32(out, numSections)
	pos := headerLen + 8*numSections
	for _, s := range secs {
		out = binary.LittleEndian.AppendUint32(out, uint32(pos))
		out = binary.LittleEndian.AppendUint32(out, uint32(len(s)))
		pos += len(s)
	}
	for _, s := range secs {
		out = append(out, s...)
	}
	return out, nil
}

// writeSections writes every section but the string table.
func writeSections(c *Catalog, e *binEncoder) [numSections][]byte {
	var secs [numSections][]byte
	table := func(sec, n int, isNil bool, rec func(w *binWriter, i int)) *binWriter {
		w := &binWriter{e: e}
		w.count(n, isNil)
		for i := range n {
			rec(w, i)
		}
		secs[sec] = w.b
		return w
	}
	w := table(secGPUs, len(c.GPUs), c.GPUs == nil, func(w *binWriter, i int) { w.gpu(c.GPUs[i]) })
	// The GPU name index follows the table: normalizing every name and
	// alias was most of the GPU table's decoding.
	idx := gpuIndexOf(c.GPUs)
	w.uv(uint64(len(idx)))
	total := 0
	for _, gs := range idx {
		total += len(gs)
	}
	w.uv(uint64(total))
	for _, k := range sortedKeys(idx) {
		w.str(k)
		w.uv(uint64(len(idx[k])))
		for _, g := range idx[k] {
			w.gpuRef(g)
		}
	}
	secs[secGPUs] = w.b
	table(secProviders, len(c.Providers), c.Providers == nil, func(w *binWriter, i int) { w.provider(c.Providers[i]) })
	table(secSources, len(c.Sources), c.Sources == nil, func(w *binWriter, i int) { w.source(&c.Sources[i]) })
	table(secEgress, len(c.EgressTables), c.EgressTables == nil, func(w *binWriter, i int) { w.egress(&c.EgressTables[i]) })
	table(secLicenses, len(c.Licenses), c.Licenses == nil, func(w *binWriter, i int) { w.license(&c.Licenses[i]) })
	table(secOfferings, len(c.Offerings), c.Offerings == nil, func(w *binWriter, i int) { w.offering(&c.Offerings[i]) })
	table(secCommitments, len(c.Commitments), c.Commitments == nil, func(w *binWriter, i int) { w.commitment(&c.Commitments[i]) })
	table(secSpotBands, len(c.SpotBands), c.SpotBands == nil, func(w *binWriter, i int) { w.spotBand(&c.SpotBands[i]) })
	table(secLeftOut, len(c.LeftOut), c.LeftOut == nil, func(w *binWriter, i int) { w.leftOut(&c.LeftOut[i]) })
	// Last: the decimal table's large coefficients are strings.
	d := &binWriter{e: e}
	d.decimals()
	secs[secDecimals] = d.b
	return secs
}

// errStale says how to rebuild a blob the text files no longer match.
var errStale = errors.New("run 'go generate ./internal/catalog' to rebuild it")

// binFile is an opened blob: its sections and string table.
type binFile struct {
	sums binSums
	secs [numSections]string
	t    binTables
}

// openBinary checks the header and locates the sections and strings; it
// decodes no record.
func openBinary(blob string) (*binFile, error) {
	if len(blob) < headerLen || blob[:len(binMagic)] != binMagic {
		return nil, fmt.Errorf("catalog.bin: not a gpuscout binary catalog (no gpuscat header): %w", errStale)
	}
	h := blob[len(binMagic):]
	if v := le32(h, 0); v != binVersion {
		return nil, fmt.Errorf("catalog.bin: format version %d, this gpuscout reads version %d: %w", v, binVersion, errStale)
	}
	bf := &binFile{sums: binSums{gpus: uint32(le32(h, 4)), all: uint32(le32(h, 8))}}
	if n := le32(h, 12); n != numSections || len(blob) < headerLen+8*numSections {
		return nil, fmt.Errorf("catalog.bin: %d sections, want %d", n, numSections)
	}
	// The sections follow the header one after the other, to the last byte.
	pos := uint64(headerLen + 8*numSections)
	for i := range bf.secs {
		off, n := le32(blob, uint64(headerLen+8*i)), le32(blob, uint64(headerLen+8*i+4))
		if off != pos || n > uint64(len(blob))-off {
			return nil, fmt.Errorf("catalog.bin: %s section at bytes %d+%d, want it at %d within the blob's %d", sectionNames[i], off, n, pos, len(blob))
		}
		bf.secs[i] = blob[off : off+n]
		pos += n
	}
	if pos != uint64(len(blob)) {
		return nil, fmt.Errorf("catalog.bin: %d bytes after the last section", uint64(len(blob))-pos)
	}
	r := bf.reader(secStrings)
	n := r.uv()
	if r.err == nil && n >= uint64(len(r.s)-r.i)/4 { // n+1 offsets of 4 bytes
		r.fail("%d strings", n)
	}
	if r.err != nil {
		return nil, r.err
	}
	offs := r.s[r.i : r.i+4*int(n+1)]
	bf.t.strData = r.s[r.i+4*int(n+1):]
	// The offsets are checked here, once, so that a string's lookup is
	// two loads and a substring.
	bf.t.strOffs = make([]uint32, n+1)
	var prev uint64
	for i := range bf.t.strOffs {
		o := le32(offs, uint64(4*i))
		if o < prev || o > uint64(len(bf.t.strData)) {
			return nil, fmt.Errorf("catalog.bin: strings section: string %d ends at byte %d, before its start (%d) or past the data (%d bytes)", i, o, prev, len(bf.t.strData))
		}
		bf.t.strOffs[i], prev = uint32(o), o
	}
	return bf, nil
}

func (bf *binFile) reader(sec int) *binReader {
	return &binReader{s: bf.secs[sec], name: sectionNames[sec], t: &bf.t}
}

// checkSums refuses a blob built from other text files than f: all of
// them, or only gpus.yaml (the GPU table's one input).
func (bf *binFile) checkSums(f Files, gpusOnly bool) error {
	want := textSums(Files{GPUs: f.GPUs})
	if !gpusOnly {
		want = textSums(f)
	}
	if want.gpus != bf.sums.gpus || !gpusOnly && want.all != bf.sums.all {
		what := "another gpus.yaml than the embedded one"
		if want.gpus == bf.sums.gpus {
			what = "other YAML or CSV files than the embedded ones"
		}
		return fmt.Errorf("catalog.bin was built from %s: %w", what, errStale)
	}
	return nil
}

// end checks that a section was read whole and without error.
func (r *binReader) end() error {
	if r.err == nil && r.i != len(r.s) {
		r.fail("%d bytes left over", len(r.s)-r.i)
	}
	return r.err
}

// gpus decodes the GPU table and its name index (Catalog.gpuIndex), and
// lets the other sections' GPU references resolve.
func (bf *binFile) gpus() ([]*GPU, map[string][]*GPU, error) {
	r := bf.reader(secGPUs)
	n := r.count()
	var gs []*GPU
	if n >= 0 {
		arr := make([]GPU, n)
		gs = make([]*GPU, n)
		for i := range arr {
			gs[i] = &arr[i]
		}
		bf.t.gpus = gs
		for _, g := range gs {
			r.gpu(g)
		}
	}
	keys, total := r.uv(), r.uv()
	if rest := uint64(len(r.s) - r.i); keys > rest || total > rest {
		r.fail("%d names of %d GPUs in %d bytes", keys, total, rest)
	}
	idx := make(map[string][]*GPU, keys)
	all := make([]*GPU, 0, total)
	for range keys {
		k := r.str()
		m := r.uv()
		if m > total-uint64(len(all)) {
			r.fail("GPU name %q: %d GPUs, more than the %d left", k, m, total-uint64(len(all)))
			break
		}
		lo := len(all)
		for range m {
			g := r.gpuRef()
			if g == nil {
				r.fail("GPU name %q: no GPU", k)
			}
			all = append(all, g)
		}
		idx[k] = all[lo:len(all):len(all)]
	}
	if err := r.end(); err != nil {
		bf.t.gpus = nil
		return nil, nil, err
	}
	return gs, idx, nil
}

// specs decodes everything but the GPU table, the offerings and the
// commitments: the parts Default shares between its catalogs.
func (bf *binFile) specs(c *Catalog) error {
	var err error
	r := bf.reader(secDecimals)
	bf.t.decs = r.decimals()
	if err = r.end(); err != nil {
		return err
	}
	r = bf.reader(secProviders)
	if n := r.count(); n >= 0 {
		arr := make([]Provider, n)
		c.Providers = make([]*Provider, n)
		for i := range arr {
			r.provider(&arr[i])
			c.Providers[i] = &arr[i]
		}
	}
	if err = r.end(); err != nil {
		return err
	}
	r = bf.reader(secSources)
	if n := r.count(); n >= 0 {
		c.Sources = make([]Source, n)
		for i := range c.Sources {
			r.source(&c.Sources[i])
		}
	}
	if err = r.end(); err != nil {
		return err
	}
	r = bf.reader(secEgress)
	if n := r.count(); n >= 0 {
		c.EgressTables = make([]EgressTable, n)
		for i := range c.EgressTables {
			r.egress(&c.EgressTables[i])
		}
	}
	if err = r.end(); err != nil {
		return err
	}
	r = bf.reader(secLicenses)
	if n := r.count(); n >= 0 {
		c.Licenses = make([]LicenseSurcharge, n)
		for i := range c.Licenses {
			r.license(&c.Licenses[i])
		}
	}
	if err = r.end(); err != nil {
		return err
	}
	r = bf.reader(secSpotBands)
	if n := r.count(); n >= 0 {
		c.SpotBands = make([]SpotBand, n)
		for i := range c.SpotBands {
			r.spotBand(&c.SpotBands[i])
		}
	}
	if err = r.end(); err != nil {
		return err
	}
	r = bf.reader(secLeftOut)
	if n := r.count(); n >= 0 {
		c.LeftOut = make([]LeftOutType, n)
		for i := range c.LeftOut {
			r.leftOut(&c.LeftOut[i])
		}
	}
	return r.end()
}

// prices decodes the offerings and commitments: the parts each Default
// catalog has its own copy of. specs and gpus have run.
func (bf *binFile) prices(c *Catalog) error {
	r := bf.reader(secOfferings)
	if n := r.count(); n >= 0 {
		c.Offerings = make([]Offering, n)
		for i := range c.Offerings {
			r.offering(&c.Offerings[i])
		}
	}
	if err := r.end(); err != nil {
		return err
	}
	r = bf.reader(secCommitments)
	if n := r.count(); n >= 0 {
		c.Commitments = make([]Commitment, n)
		for i := range c.Commitments {
			r.commitment(&c.Commitments[i])
		}
	}
	return r.end()
}

// decodeBinary decodes a whole blob into a catalog, indexed; it does not
// compare the blob's checksums with any text (Default does).
func decodeBinary(blob string) (*Catalog, error) {
	bf, err := openBinary(blob)
	if err != nil {
		return nil, err
	}
	c := &Catalog{}
	if c.GPUs, c.gpuIndex, err = bf.gpus(); err != nil {
		return nil, err
	}
	if err := bf.specs(c); err != nil {
		return nil, err
	}
	if err := bf.prices(c); err != nil {
		return nil, err
	}
	c.indexProviders()
	if err := c.indexSources(); err != nil {
		return nil, fmt.Errorf("catalog.bin: %w", err)
	}
	return c, nil
}
