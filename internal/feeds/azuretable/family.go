package azuretable

import "strings"

// Kind is what a table key names, as far as gpuscout is concerned.
type Kind int

// The kinds of key. Only GPU keys become offerings.
const (
	GPU           Kind = iota // an N-series GPU size: Standard_NC..., NCC..., ND..., NG..., NV...
	NotGPU                    // another VM size: Standard_D4s_v5, Basic_A0, ...
	FPGA                      // Standard_NP...: Xilinx Alveo U250 FPGAs
	Media                     // Standard_NM...: the AMD Xilinx Alveo MA35D video transcoding accelerator
	UnknownN                  // an N-series family gpuscout does not know
	DedicatedHost             // a key without the Standard_ prefix: an Azure Dedicated Host SKU
	Placeholder               // ARM_SKU_NAME_PLACEHOLDER: the generator's stand-in for a missing name
)

// PlaceholderKey is the key the generator writes where the API gave no
// armSkuName.
const PlaceholderKey = "ARM_SKU_NAME_PLACEHOLDER"

// Classify says what a size (a key without surrounding spaces) names. Azure
// writes VM sizes as Standard_ (or, for the old Basic tier, Basic_) and the
// family letters; the N-series is its accelerated family, whose second
// letter says the accelerator class: C compute, D deep learning, G gaming
// and V visualisation GPUs, P FPGAs, M media.
func Classify(size string) Kind {
	switch {
	case size == PlaceholderKey:
		return Placeholder
	case strings.HasPrefix(size, "Basic_"):
		return NotGPU
	case !strings.HasPrefix(size, "Standard_"):
		return DedicatedHost
	}
	name := strings.TrimPrefix(size, "Standard_")
	if len(name) < 2 || name[0] != 'N' {
		return NotGPU
	}
	switch name[1] {
	case 'C', 'D', 'G', 'V':
		return GPU
	case 'P':
		return FPGA
	case 'M':
		return Media
	}
	return UnknownN
}
