package catalog

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// The embedded blob decodes to exactly what parsing the embedded text
// files gives: every field of every GPU, provider, source, table and
// offering, the nil-or-empty of every slice and map, the representation
// of every decimal, the indexes.
func TestBinaryDecodesAsParse(t *testing.T) {
	want, err := Parse(Embedded())
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeBinary(catalogBin)
	if err != nil {
		t.Fatal(err)
	}
	if d := firstDiff(reflect.ValueOf(got), reflect.ValueOf(want), "catalog"); d != "" {
		t.Fatalf("decoded blob differs from Parse: %s", d)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("decoded blob differs from Parse (reflect.DeepEqual)")
	}
	// Default's copies (shared tables, their own offerings) are the same catalog.
	for range 2 {
		def, err := Default()
		if err != nil {
			t.Fatal(err)
		}
		if d := firstDiff(reflect.ValueOf(def), reflect.ValueOf(want), "Default()"); d != "" || !reflect.DeepEqual(def, want) {
			t.Fatalf("Default() differs from Parse: %s", d)
		}
	}
	table, err := GPUTable()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(table.GPUs, want.GPUs) || !reflect.DeepEqual(table.gpuIndex, want.gpuIndex) {
		t.Error("GPUTable's GPUs differ from Parse's")
	}
}

// The embedded blob is byte for byte what the generator writes from the
// embedded text files now ('go generate ./internal/catalog' rebuilds it;
// internal/catalog/build's TestSnapshotUpToDate checks the same from the
// feeds up).
func TestBinaryUpToDate(t *testing.T) {
	b, err := EncodeBinary(Embedded())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, []byte(catalogBin)) {
		t.Fatalf("data/%s (%d bytes) is not what the text files give (%d bytes): run 'go generate ./internal/catalog'", BinaryFile, len(catalogBin), len(b))
	}
	if stale := Stale(map[string][]byte{BinaryFile: b}); len(stale) != 0 {
		t.Errorf("Stale = %v for the embedded blob's own bytes", stale)
	}
}

// A catalog with every exported field of every record set (filled by
// reflection, so a field added later without a line in the codec fails
// here) and a catalog of empty and nil tables both survive the round trip.
func TestBinaryRoundTripEveryField(t *testing.T) {
	for _, mode := range []fillMode{fillAll, fillEmpty} {
		c := filledCatalog(t, mode)
		b, err := encodeBinary(c, binSums{gpus: 1, all: 2})
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeBinary(string(b))
		if err != nil {
			t.Fatalf("mode %d: %v", mode, err)
		}
		if err := c.index(); err != nil {
			t.Fatal(err)
		}
		if d := firstDiff(reflect.ValueOf(got), reflect.ValueOf(c), "catalog"); d != "" || !reflect.DeepEqual(got, c) {
			t.Errorf("mode %d: round trip differs: %s", mode, d)
		}
		again, err := encodeBinary(got, binSums{gpus: 1, all: 2})
		if err != nil || !bytes.Equal(again, b) {
			t.Errorf("mode %d: re-encoding the decoded catalog gives other bytes (%v)", mode, err)
		}
	}
	// The filler reaches every field: none of the filled records has a
	// zero exported field left.
	c := filledCatalog(t, fillAll)
	if p := zeroField(reflect.ValueOf(c).Elem(), "catalog", map[uintptr]bool{}); p != "" {
		t.Errorf("the filler left %s zero", p)
	}
}

// A damaged blob is refused with an error naming what is wrong, never a
// panic: every truncation, bytes flipped, another format version, another
// file's header, text files it was not built from.
func TestBinaryRefusesDamage(t *testing.T) {
	small, err := encodeBinary(filledCatalog(t, fillAll), binSums{})
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(small) {
		if _, err := decodeBinary(string(small[:n])); err == nil {
			t.Fatalf("the first %d of %d bytes decoded without error", n, len(small))
		}
	}
	for _, n := range []int{0, 10, headerLen, len(catalogBin) / 2, len(catalogBin) - 1} {
		if _, err := decodeBinary(catalogBin[:n]); err == nil {
			t.Errorf("the embedded blob cut at %d bytes decoded without error", n)
		}
	}
	for i := range small { // no panic; most flips are errors
		b := bytes.Clone(small)
		b[i] ^= 0xa5
		_, _ = decodeBinary(string(b))
	}
	tests := []struct {
		name string
		blob func([]byte) []byte
		want string
	}{
		{"other magic", func(b []byte) []byte { return append([]byte("PK\x03\x04"), b[4:]...) }, "not a gpuscout binary catalog"},
		{"version 2", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(binMagic):], 2)
			return b
		}, "format version 2, this gpuscout reads version 1: run 'go generate ./internal/catalog'"},
		{"a byte after the sections", func(b []byte) []byte { return append(b, 0) }, "1 bytes after the last section"},
		{"trailing bytes in a section", func(b []byte) []byte {
			o := headerLen + 8*secLeftOut
			binary.LittleEndian.PutUint32(b[o+4:], binary.LittleEndian.Uint32(b[o+4:])+1)
			return append(b, 0)
		}, "left out section, byte"},
		{"a string beyond the table", func(b []byte) []byte {
			// String 1 (the first GPU's name) ends at its second offset.
			off := int(binary.LittleEndian.Uint32(b[headerLen+8*secStrings:]))
			_, k := binary.Uvarint(b[off:])
			binary.LittleEndian.PutUint32(b[off+k+4:], 0xffffff00)
			return b
		}, "strings section: string 1 ends at byte 4294967040, before its start (0) or past the data"},
	}
	for _, tt := range tests {
		_, err := decodeBinary(string(tt.blob(bytes.Clone(small))))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one with %q", tt.name, err, tt.want)
		}
	}
	bf, err := openBinary(catalogBin)
	if err != nil {
		t.Fatal(err)
	}
	f := Embedded()
	f.Offerings = bytes.Replace(f.Offerings, []byte("61.88"), []byte("61.89"), 1)
	if err := bf.checkSums(f, false); err == nil || !strings.Contains(err.Error(), "catalog.bin was built from other YAML or CSV files than the embedded ones: run 'go generate ./internal/catalog' to rebuild it") {
		t.Errorf("a changed offerings.csv: %v", err)
	}
	if err := bf.checkSums(f, true); err != nil {
		t.Errorf("the GPU table refused over a changed offerings.csv: %v", err)
	}
	f.GPUs = append(bytes.Clone(f.GPUs), '\n')
	if err := bf.checkSums(f, true); err == nil || !strings.Contains(err.Error(), "catalog.bin was built from another gpus.yaml than the embedded one: run") {
		t.Errorf("a changed gpus.yaml: %v", err)
	}
}

// FuzzDecodeSnapshot: no input makes the decoder panic or hand out a
// catalog whose references leave its tables.
func FuzzDecodeSnapshot(f *testing.F) {
	small, err := encodeBinary(filledCatalog(f, fillAll), binSums{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(small)
	f.Add(small[:len(small)/2])
	f.Add([]byte(catalogBin))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeBinary(string(b))
		if err != nil {
			return
		}
		for i := range c.Offerings {
			if g := c.Offerings[i].GPU; g != nil && !slices.Contains(c.GPUs, g) {
				t.Fatalf("offering %d's GPU is not in the table", i)
			}
		}
		for _, g := range c.GPUs {
			if g == nil || g.Estimate != nil && g.Estimate.FromGPU != nil && !slices.Contains(c.GPUs, g.Estimate.FromGPU) {
				t.Fatal("a GPU outside the table")
			}
		}
		if _, err := encodeBinary(c, binSums{}); err != nil {
			t.Fatalf("a decoded catalog does not encode: %v", err)
		}
	})
}

func BenchmarkDecodeBinary(b *testing.B) {
	for b.Loop() {
		if _, err := decodeBinary(catalogBin); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDefault: one more copy of the embedded catalog (the offerings
// and commitments decoded again); the first call also decodes the tables.
func BenchmarkDefault(b *testing.B) {
	for b.Loop() {
		if _, err := Default(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeGPUTable(b *testing.B) {
	for b.Loop() {
		bf, err := openBinary(catalogBin)
		if err != nil {
			b.Fatal(err)
		}
		c := &Catalog{}
		if c.GPUs, c.gpuIndex, err = bf.gpus(); err != nil {
			b.Fatal(err)
		}
		c.indexProviders()
		if err := c.indexSources(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTextChecksums(b *testing.B) {
	f := Embedded()
	for b.Loop() {
		textSums(f)
	}
}

type fillMode int

const (
	fillAll   fillMode = iota // every field set, slices and maps of two
	fillEmpty                 // slices and maps empty (not nil), pointers nil
)

// filledCatalog builds a catalog by reflection: in fillAll mode every
// exported field of every record holds a value of its own (a *GPU points
// into the catalog's table); in fillEmpty mode the tables are empty.
func filledCatalog(t testing.TB, mode fillMode) *Catalog {
	t.Helper()
	c := &Catalog{}
	f := &filler{t: t, mode: mode}
	if mode == fillAll {
		c.GPUs = []*GPU{{}, {}}
		f.gpu = c.GPUs[1]
		for _, g := range c.GPUs {
			f.fill(reflect.ValueOf(g).Elem())
		}
	} else {
		c.GPUs = []*GPU{}
	}
	v := reflect.ValueOf(c).Elem()
	for i := range v.NumField() {
		if sf := v.Type().Field(i); sf.IsExported() && sf.Name != "GPUs" {
			f.fill(v.Field(i))
		}
	}
	return c
}

type filler struct {
	t    testing.TB
	mode fillMode
	n    int
	gpu  *GPU // what every *GPU field points to
}

var decimalType = reflect.TypeFor[decimal.Decimal]()

func (f *filler) fill(v reflect.Value) {
	f.n++
	n := f.n
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float64:
		x := float64(n) // whole numbers and fractions: both float encodings
		if n%2 == 0 {
			x += 0.25
		}
		v.SetFloat(x)
	case reflect.Slice:
		k := 2
		if f.mode == fillEmpty {
			k = 0
		}
		s := reflect.MakeSlice(v.Type(), k, k)
		for i := range k {
			f.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		if f.mode == fillAll {
			for range 2 {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				f.fill(k)
				f.fill(e)
				m.SetMapIndex(k, e)
			}
		}
		v.Set(m)
	case reflect.Pointer:
		if f.mode == fillEmpty {
			return
		}
		if v.Type() == reflect.TypeFor[*GPU]() {
			v.Set(reflect.ValueOf(f.gpu))
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Struct:
		if v.Type() == decimalType {
			d := decimal.New(int64(n), -2)
			if n%2 == 1 { // a coefficient beyond int64
				c, _ := new(big.Int).SetString(fmt.Sprintf("1%030d", n), 10)
				d = decimal.NewFromBigInt(c, int32(-n))
			}
			v.Set(reflect.ValueOf(d))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i))
			}
		}
	default:
		f.t.Fatalf("the binary catalog has no encoding for a %s field (%s): add one to binary_records.go and to this filler", v.Kind(), v.Type())
	}
}

// zeroField returns the path of an exported field left at its zero
// value under v, or "".
func zeroField(v reflect.Value, path string, seen map[uintptr]bool) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return path
		}
		if seen[v.Pointer()] {
			return ""
		}
		seen[v.Pointer()] = true
		return zeroField(v.Elem(), path, seen)
	case reflect.Slice, reflect.Map:
		if v.Len() == 0 {
			return path
		}
		if v.Kind() == reflect.Slice {
			return zeroField(v.Index(0), path+"[0]", seen)
		}
		it := v.MapRange()
		it.Next()
		return zeroField(it.Value(), path+"["+it.Key().String()+"]", seen)
	case reflect.Struct:
		if v.Type() == decimalType {
			if v.IsZero() {
				return path
			}
			return ""
		}
		for i := range v.NumField() {
			if sf := v.Type().Field(i); sf.IsExported() {
				if p := zeroField(v.Field(i), path+"."+sf.Name, seen); p != "" {
					return p
				}
			}
		}
		return ""
	}
	if v.IsZero() {
		return path
	}
	return ""
}

// firstDiff returns where a and b first differ (the path and both
// values), or "" where reflect.DeepEqual would find them equal; for
// messages that say which field a codec gets wrong.
func firstDiff(a, b reflect.Value, path string) string {
	return diffAt(a, b, path, map[[2]uintptr]bool{})
}

func diffAt(a, b reflect.Value, path string, seen map[[2]uintptr]bool) string {
	if a.IsValid() != b.IsValid() || a.IsValid() && a.Type() != b.Type() {
		return path + ": types differ"
	}
	if !a.IsValid() {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: nil %v, want nil %v", path, a.IsNil(), b.IsNil())
			}
			return ""
		}
		k := [2]uintptr{a.Pointer(), b.Pointer()}
		if seen[k] {
			return ""
		}
		seen[k] = true
		return diffAt(a.Elem(), b.Elem(), path, seen)
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d (nil %v), want %d (nil %v)", path, a.Len(), a.IsNil(), b.Len(), b.IsNil())
		}
		for i := range a.Len() {
			if d := diffAt(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), seen); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d (nil %v), want %d (nil %v)", path, a.Len(), a.IsNil(), b.Len(), b.IsNil())
		}
		it := a.MapRange()
		for it.Next() {
			bv := b.MapIndex(it.Key())
			if !bv.IsValid() {
				return fmt.Sprintf("%s: key %v not wanted", path, it.Key())
			}
			if d := diffAt(it.Value(), bv, fmt.Sprintf("%s[%v]", path, it.Key()), seen); d != "" {
				return d
			}
		}
		return ""
	case reflect.Struct:
		for i := range a.NumField() {
			if d := diffAt(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name, seen); d != "" {
				return d
			}
		}
		return ""
	case reflect.String:
		if a.String() != b.String() {
			return fmt.Sprintf("%s: %q, want %q", path, a.String(), b.String())
		}
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			return fmt.Sprintf("%s: %v, want %v", path, a.Bool(), b.Bool())
		}
	case reflect.Float32, reflect.Float64:
		if a.Float() != b.Float() {
			return fmt.Sprintf("%s: %v, want %v", path, a.Float(), b.Float())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if a.Int() != b.Int() {
			return fmt.Sprintf("%s: %v, want %v", path, a.Int(), b.Int())
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if a.Uint() != b.Uint() {
			return fmt.Sprintf("%s: %v, want %v", path, a.Uint(), b.Uint())
		}
	}
	return ""
}
