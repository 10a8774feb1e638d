package catalog

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/shopspring/decimal"
)

// The primitives of the binary catalog (see binary.go for the layout):
// binWriter appends values to a section and interns strings and decimals
// into the tables every section shares; binReader reads them back with a
// sticky error, so a record's decoder reads field after field and the
// caller checks once. Every value takes at least one byte, so a count
// above the bytes left is an error before anything is allocated.

// binEncoder holds the tables shared by the sections being written. The
// sections are written twice: the first pass lists the strings and
// decimals and counts their uses, then the tables are ordered by use (ties
// in order of first use), so that the most used take the one-byte indexes
// (below 128), and the second pass writes the indexes.
type binEncoder struct {
	final  bool              // the second pass: every string and decimal has its index
	strIdx map[string]uint64 // string -> its index (1-based; 0 is "")
	strs   []string          // by index-1
	strUse []int
	decIdx map[decKey]uint64 // decimal -> its index (1-based; 0 is the zero Decimal{})
	decs   []decimal.Decimal // by index-1
	decUse []int
	gpuIdx map[*GPU]uint64 // GPU -> its index in the GPU table (1-based; 0 is nil)
	err    error
}

// decKey tells decimals apart by representation, not value: 3.0 and 3.00
// are different decimals to reflect.DeepEqual, and the decoded catalog must
// equal the parsed one.
type decKey struct {
	coef string
	exp  int32
}

func keyOf(d decimal.Decimal) decKey { return decKey{d.Coefficient().String(), d.Exponent()} }

func newBinEncoder() *binEncoder {
	return &binEncoder{strIdx: map[string]uint64{}, decIdx: map[decKey]uint64{}, gpuIdx: map[*GPU]uint64{}}
}

// order ends the first pass: it sorts the tables by use and fixes the indexes.
func (e *binEncoder) order() {
	byUse := func(n int, use []int) []int {
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		slices.SortStableFunc(perm, func(a, b int) int { return use[b] - use[a] })
		return perm
	}
	strs := make([]string, len(e.strs))
	for i, j := range byUse(len(e.strs), e.strUse) {
		strs[i] = e.strs[j]
		e.strIdx[strs[i]] = uint64(i + 1)
	}
	decs := make([]decimal.Decimal, len(e.decs))
	for i, j := range byUse(len(e.decs), e.decUse) {
		decs[i] = e.decs[j]
		e.decIdx[keyOf(decs[i])] = uint64(i + 1)
	}
	e.strs, e.decs, e.final = strs, decs, true
}

// intern returns a table entry's index: in the first pass a count of its
// uses (and a new entry where it has none), in the second its place.
func intern[K comparable](e *binEncoder, idx map[K]uint64, k K, use *[]int, add func()) uint64 {
	i, ok := idx[k]
	switch {
	case e.final && !ok:
		if e.err == nil {
			e.err = fmt.Errorf("%v was not seen in the first pass", k) // cannot happen: both passes write the same
		}
	case e.final:
	case !ok:
		add()
		*use = append(*use, 1)
		i = uint64(len(*use))
		idx[k] = i
	default:
		(*use)[i-1]++
	}
	return i
}

// binWriter appends one section.
type binWriter struct {
	b []byte
	e *binEncoder
}

func (w *binWriter) uv(x uint64) { w.b = binary.AppendUvarint(w.b, x) }
func (w *binWriter) sv(x int64)  { w.b = binary.AppendVarint(w.b, x) }

func (w *binWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

// f64 writes a whole number from 0 to 2^53 as an even varint (one byte
// up to 63), any other float as 1 followed by its eight IEEE 754 bytes.
func (w *binWriter) f64(v float64) {
	if v >= 0 && v <= 1<<53 && v == math.Trunc(v) && !math.Signbit(v) {
		w.uv(uint64(v) << 1)
		return
	}
	w.uv(1)
	w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(v))
}

func (w *binWriter) str(s string) {
	if s == "" {
		w.uv(0)
		return
	}
	w.uv(intern(w.e, w.e.strIdx, s, &w.e.strUse, func() { w.e.strs = append(w.e.strs, s) }))
}

// count writes a slice's or map's length plus one; 0 is nil, which
// reflect.DeepEqual tells from empty.
func (w *binWriter) count(n int, isNil bool) {
	if isNil {
		w.uv(0)
		return
	}
	w.uv(uint64(n) + 1)
}

func (w *binWriter) strs(ss []string) {
	w.count(len(ss), ss == nil)
	for _, s := range ss {
		w.str(s)
	}
}

func (w *binWriter) dec(d decimal.Decimal) {
	if d == (decimal.Decimal{}) { // no value at all: the zero Decimal{}, not decimal.Zero
		w.uv(0)
		return
	}
	w.uv(intern(w.e, w.e.decIdx, keyOf(d), &w.e.decUse, func() { w.e.decs = append(w.e.decs, d) }))
}

// decimals writes the decimal table.
func (w *binWriter) decimals() {
	w.count(len(w.e.decs), false)
	for _, d := range w.e.decs {
		if coef := d.Coefficient(); coef.IsInt64() {
			w.b = append(w.b, decSmall)
			w.sv(coef.Int64())
		} else {
			w.b = append(w.b, decBig)
			w.str(coef.String())
		}
		w.sv(int64(d.Exponent()))
	}
}

// Kinds of decimal table entries.
const (
	decSmall = 1 // a coefficient that fits an int64: decimal.New
	decBig   = 2 // a larger one, as base-10 text in the string table
)

// gpuRef writes a GPU as its index in the catalog's table (0: nil).
func (w *binWriter) gpuRef(g *GPU) {
	if g == nil {
		w.uv(0)
		return
	}
	i, ok := w.e.gpuIdx[g]
	if !ok && w.e.err == nil {
		w.e.err = fmt.Errorf("GPU %q is not in the catalog's GPU table", g.Name)
	}
	w.uv(i)
}

// sortedKeys returns a map's keys in order, so the same catalog always
// encodes to the same bytes.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// binTables are what the sections' records refer to: the string table
// (a view of the blob), the decimals and the GPU table.
type binTables struct {
	strOffs []uint32 // n+1 offsets into strData, checked: string i is strData[strOffs[i-1]:strOffs[i]]
	strData string
	decs    []decimal.Decimal
	gpus    []*GPU
}

// binReader reads one section.
type binReader struct {
	s    string
	i    int
	name string // the section, for errors
	err  error
	t    *binTables
}

func (r *binReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("catalog.bin: %s section, byte %d: %s", r.name, r.i, fmt.Sprintf(format, args...))
	}
	r.i = len(r.s) // nothing more is read
}

func (r *binReader) uv() uint64 {
	if s, i := r.s, r.i; uint(i) < uint(len(s)) && s[i] < 0x80 { // most values: one byte
		r.i = i + 1
		return uint64(s[i])
	}
	return r.uvLong()
}

func (r *binReader) uvLong() uint64 {
	if s, i := r.s, r.i; i+1 < len(s) && s[i+1] < 0x80 { // two bytes: indexes from 128, floats from 64
		r.i = i + 2
		return uint64(s[i]&0x7f) | uint64(s[i+1])<<7
	}
	var x uint64
	for shift := uint(0); r.i < len(r.s); shift += 7 {
		c := r.s[r.i]
		r.i++
		if c < 0x80 {
			if shift == 63 && c > 1 {
				break
			}
			return x | uint64(c)<<shift
		}
		if shift == 63 {
			break
		}
		x |= uint64(c&0x7f) << shift
	}
	r.fail("truncated or overlong varint")
	return 0
}

func (r *binReader) sv() int64 {
	u := r.uv()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

func (r *binReader) byte() byte {
	if r.i >= len(r.s) {
		r.fail("truncated")
		return 0
	}
	c := r.s[r.i]
	r.i++
	return c
}

func (r *binReader) bool() bool {
	switch r.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.fail("want a bool (0 or 1)")
	return false
}

func (r *binReader) f64() float64 {
	u := r.uv()
	if u&1 == 0 {
		return float64(u >> 1)
	}
	if u != 1 || len(r.s)-r.i < 8 {
		r.fail("bad float")
		return 0
	}
	v := math.Float64frombits(le32(r.s, uint64(r.i)) | le32(r.s, uint64(r.i+4))<<32)
	r.i += 8
	return v
}

func (r *binReader) str() string {
	i := r.uv()
	if offs := r.t.strOffs; i-1 < uint64(len(offs)-1) { // 1..n; 0 wraps around
		return r.t.strData[offs[i-1]:offs[i]] // openBinary checked the offsets
	}
	if i != 0 {
		r.fail("string %d of %d", i, len(r.t.strOffs)-1)
	}
	return ""
}

// le32 reads the little-endian uint32 at byte i of s (the caller checked the length).
func le32(s string, i uint64) uint64 {
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24
}

// count reads a length written by binWriter.count: -1 for nil. A length
// above the bytes left is refused (each element takes one byte or more).
func (r *binReader) count() int {
	n := r.uv()
	if n == 0 {
		return -1
	}
	if n-1 > uint64(len(r.s)-r.i) {
		r.fail("%d elements in %d bytes", n-1, len(r.s)-r.i)
		return -1
	}
	return int(n - 1)
}

func (r *binReader) strs() []string {
	n := r.count()
	if n < 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

func (r *binReader) dec() decimal.Decimal {
	i := r.uv()
	if i == 0 {
		return decimal.Decimal{}
	}
	if i > uint64(len(r.t.decs)) {
		r.fail("decimal %d of %d", i, len(r.t.decs))
		return decimal.Decimal{}
	}
	return r.t.decs[i-1]
}

func (r *binReader) gpuRef() *GPU {
	i := r.uv()
	if i == 0 {
		return nil
	}
	if i > uint64(len(r.t.gpus)) {
		r.fail("GPU %d of %d", i, len(r.t.gpus))
		return nil
	}
	return r.t.gpus[i-1]
}

// decimals reads the decimal table.
func (r *binReader) decimals() []decimal.Decimal {
	n := r.count()
	if n < 0 {
		return nil
	}
	out := make([]decimal.Decimal, n)
	for i := range out {
		switch r.byte() {
		case decSmall:
			m := r.sv()
			out[i] = decimal.New(m, r.exp())
		case decBig:
			s := r.str()
			v, ok := new(big.Int).SetString(s, 10)
			if !ok {
				r.fail("decimal coefficient %q", s)
				return nil
			}
			out[i] = decimal.NewFromBigInt(v, r.exp())
		default:
			r.fail("decimal kind")
		}
	}
	return out
}

func (r *binReader) exp() int32 {
	e := r.sv()
	if e < math.MinInt32 || e > math.MaxInt32 {
		r.fail("decimal exponent %d", e)
		return 0
	}
	return int32(e)
}
