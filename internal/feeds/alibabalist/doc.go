// Package alibabalist reads Alibaba Cloud's China-site pay-as-you-go Linux
// list prices of ECS instance types, as the Karpenter provider for Alibaba
// Cloud ships them (initial-on-demand-prices.json: {region: {instanceType:
// CNY per hour}}), and yields one on-demand offering per GPU instance type
// and region. The table gives prices only; the catalog build joins each row
// with the curated Alibaba spec (data/curated/alibaba.yaml) and leaves out
// types without one.
//
// A row is one price entry (region, instance type) on its own line of the
// file; its origin is "file:line". Rows of non-GPU families, and rows whose
// price is 0 (the table's way of saying it has none), are reported as left
// out with a reason; a malformed file is refused with an error naming the
// line, the key and the value.
package alibabalist
