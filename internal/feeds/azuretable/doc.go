// Package azuretable reads the Azure VM price table that the Karpenter
// provider for Azure generates from Microsoft's Retail Prices API
// (Azure/karpenter-provider-azure, pkg/providers/pricing/zz_generated.pricing.go:
// pay-as-you-go, Linux, USD per hour) and yields one on-demand offering per
// N-series GPU size and region. The table gives prices only; the catalog
// build joins each row with the curated Azure spec (data/curated/azure*.yaml)
// and leaves out sizes without one. Spot, Windows and reservation prices are
// not in the table: they come from `catalog refresh --provider azure`
// (package azureretail).
//
// # Format and parser
//
// The file is Go source of a fixed, generated shape:
//
//	// generated at 2026-06-18T03:43:41Z
//	...
//	func init() {
//		// eastus
//		initialOnDemandPrices["eastus"] = map[string]float64{
//			"Standard_ND96isr_H100_v5":              98.320000,
//			...
//		}
//		...
//	}
//
// Parse reads it with a small line scanner rather than go/parser and go/ast.
// The generator writes one entry per line, so a line scanner gives every
// row its own line number (the row's origin, "file:line") directly; it
// accepts only the generated shape, so anything else (a computed key, a
// constant, a second statement, a truncated map) is refused with the line
// and the text found, where go/parser would accept any valid Go and leave
// that check to a second pass over the tree; and it reads each price as the
// decimal literal written, through money.ParseDecimal, never through a
// float64. It streams: the 3 MB file is never held whole.
//
// # Rows
//
// A row is one "key": price entry line inside a region's map (67,672 in the
// table at 2b431da1). Every row is the origin of an offering or of a
// left-out report:
//
//   - N-series GPU sizes (Standard_NC..., NCC..., ND..., NG..., NV...) become
//     offerings, priced in USD, cited by the feed's source id and dated by
//     the table's "generated at" stamp;
//   - other VM sizes (Standard_D..., Basic_A0, ...) are left out: not GPU sizes;
//   - NP-series (Xilinx FPGAs) and NM-series (the AMD Xilinx MA35D video
//     transcoding accelerator, which Azure files under FPGA-accelerated sizes)
//     are left out: no GPU gpuscout can use for ML;
//   - keys without the Standard_ prefix that name Azure Dedicated Host SKUs
//     (NVasv4_Type1, "DCsv2 Type 1", NC8dsxlRTX6Kv6, ...) are left out: a host
//     is billed per host, not per VM; the generator's ARM_SKU_NAME_PLACEHOLDER
//     key is left out as no size at all;
//   - a price of 0 is left out, never read as free.
//
// One key has trailing spaces in the table ("Standard_NM16ads_MA35D  "): the
// feed trims surrounding spaces from every key (Record.Size) and keeps the
// key as written (Record.Key); a report of such a row names the key as
// written.
package azuretable
