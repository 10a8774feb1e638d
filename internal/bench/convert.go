package bench

import (
	"encoding/binary"
	"math"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// BF16 returns the bfloat16 bits nearest to f, ties to even (the rounding
// PyTorch's and CUDA's conversions use). NaN stays a quiet NaN.
func BF16(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// FromBF16 widens bfloat16 bits to float32 exactly.
func FromBF16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// FP16 returns the IEEE half-precision bits nearest to f, ties to even;
// beyond the largest half (65504) it gives infinity, below the smallest
// subnormal zero, with f's sign.
func FP16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		// A half subnormal: the 24-bit significand shifted down to 2^-24 units.
		shift := uint(14 - e)
		if shift > 24 {
			return sign
		}
		full := man | 0x800000
		return sign | uint16(roundShift(full, shift))
	}
	// A carry out of the mantissa correctly increments the exponent, up to infinity.
	return sign | uint16(uint32(e)<<10+roundShift(man, 13))
}

// roundShift returns v >> s rounded to nearest, ties to even.
func roundShift(v uint32, s uint) uint32 {
	q := v >> s
	rem := v & (1<<s - 1)
	half := uint32(1) << (s - 1)
	if rem > half || (rem == half && q&1 == 1) {
		q++
	}
	return q
}

// FromFP16 widens half-precision bits to float32 exactly.
func FromFP16(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: man × 2^-24
		v := float32(man) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}

// FP8 returns the OCP FP8 E4M3 bits (bias 7, no infinities, largest 448)
// nearest to f, ties to even, saturating beyond ±448 as CUDA's satfinite
// conversion does; NaN is 0x7f.
func FP8(f float32) uint8 {
	if f != f {
		return 0x7f
	}
	var sign uint8
	a := float64(f)
	if a < 0 || (a == 0 && math.Signbit(a)) {
		sign, a = 0x80, -a
	}
	if a >= 448 {
		return sign | 0x7e
	}
	if a < math.Ldexp(1, -6) { // subnormal: multiples of 2^-9
		q := math.RoundToEven(a * 512)
		return sign | uint8(q) // q = 8 is the smallest normal, 0x08
	}
	frac, exp := math.Frexp(a) // a = frac × 2^exp, frac in [0.5, 1)
	e := exp - 1               // a = (2·frac) × 2^e, 2·frac in [1, 2)
	m := math.RoundToEven((2*frac - 1) * 8)
	if m == 8 {
		m, e = 0, e+1
	}
	bits := uint8(e+7)<<3 | uint8(m)
	if bits > 0x7e {
		bits = 0x7e
	}
	return sign | bits
}

// FromFP8 widens E4M3 bits to float32 exactly.
func FromFP8(b uint8) float32 {
	sign := float32(1)
	if b&0x80 != 0 {
		sign = -1
	}
	exp := int(b>>3) & 0xf
	man := float64(b & 7)
	switch {
	case exp == 0xf && b&7 == 7:
		return float32(math.NaN())
	case exp == 0:
		return sign * float32(math.Ldexp(man, -9))
	}
	return sign * float32(math.Ldexp(1+man/8, exp-7))
}

// put stores v at element i of buf as dt's bits (little-endian).
func put(dt gpu.DType, buf []byte, i int, v float32) {
	switch dt {
	case gpu.BF16:
		binary.LittleEndian.PutUint16(buf[2*i:], BF16(v))
	case gpu.FP16:
		binary.LittleEndian.PutUint16(buf[2*i:], FP16(v))
	case gpu.FP8:
		buf[i] = FP8(v)
	case gpu.FP64:
		binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(float64(v)))
	default: // FP32, TF32: fp32 storage
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
	}
}

// at reads element i of buf, stored as dt's bits, exactly.
func at(dt gpu.DType, buf []byte, i int) float64 {
	switch dt {
	case gpu.BF16:
		return float64(FromBF16(binary.LittleEndian.Uint16(buf[2*i:])))
	case gpu.FP16:
		return float64(FromFP16(binary.LittleEndian.Uint16(buf[2*i:])))
	case gpu.FP8:
		return float64(FromFP8(buf[i]))
	case gpu.FP64:
		return math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
	}
	return float64(math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:])))
}
