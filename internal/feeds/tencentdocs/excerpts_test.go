package tencentdocs

// Excerpts of the real pages (shared/data/price-sources; sources.yaml
// tencent-qcloud-gpu-prices@8ec07296, tencent-intl-cvm-prices@b7e17ea6,
// tencent-intl-gpu-prices@b7e17ea6), cut down to a few rows each but kept
// in each page's own form: the parsers' unit tests and fuzz seeds.

const listExcerpt = "instance_type,gpu,monthly_cny_low,monthly_cny_high,hourly_cny_low,hourly_cny_high\n" +
	"GT4.41XLARGE948,A100-40G x8,114016,114016,237.51,237.51\n" +
	"GN10X.2XLARGE40,V100-32G x1,4671,5190,16.21,18.04\n" +
	"GN7.LARGE20,T4 1/4,877,975,3.05,3.39\n" +
	"GN6.7XLARGE48,P4 x1,2600,2600,9,9\n"

const cvmExcerpt = "## CVM Pricing\n" +
	"\n" +
	"The following is the pricing for different types of CVM instances in different regions. Please note that these rates are **for reference purposes only**, and rates of your final order shall prevail.\n" +
	"\n" +
	"### Guangzhou\n" +
	"\n" +
	"| Model                             | Specification      | vCPU      | MEM   | Processor model \\(clock rate\\)      | Fee          |\n" +
	"| --------------------------------- | ------------------ | --------- | ----- | ----------------------------------- | ------------ |\n" +
	"| Standard SA2                      | SA2\\.SMALL1        | 1\\-core   | 1GB   | AMD EPYC™ Rome\\(2\\.6 GHz\\)          | 0\\.01USD/hr  |\n" +
	"| GPU Compute GN10X                 | GN10X\\.2XLARGE40   | 8\\-core   | 40GB  | Intel Xeon Skylake 6133\\(2\\.5 GHz\\) | 2\\.68USD/hr  |\n" +
	"\n" +
	"[Back to Top](#CVMPricing)\n" +
	"\n" +
	"### Hongkong,China\n" +
	"\n" +
	"| Model             | Specification    | vCPU     | MEM   | Processor model \\(clock rate\\)     | Fee          |\n" +
	"| ----------------- | ---------------- | -------- | ----- | ---------------------------------- | ------------ |\n" +
	"| GPU Compute GN8   | GN8\\.LARGE56     | 6\\-core  | 56GB  | Intel Xeon E5\\-2680 v4\\(2\\.4 GHz\\) | 2\\.34USD/hr  |\n" +
	"\n" +
	"[Back to Top](#CVMPricing)\n"

const overviewExcerpt = "## Billing Description\n" +
	"\n" +
	"Cloud GPU Service is **pay-as-you-go**.\n" +
	"\n" +
	">!\n" +
	"> The prices on this page are for Guangzhou Zone 3. Prices are different depending on the AZ and OS. Please refer to the prices on the [purchase page](https://www.tencentcloud.com/pricing/cvm).\n" +
	">\n" +
	"\n" +
	"### Computing GN7\n" +
	"\n" +
	"| Instance Specification | GPU (NVIDIA T4) | GPU Video Memory | vCPU | Memory | Pay-as-You-Go |\n" +
	"| --------------- | -------------- | ------- | ---- | ---- | ---------- |\n" +
	"| GN7.LARGE20     | 1/4 vGPU     | 4 GB     | 4    | 20   | 0.49 USD/hr |\n" +
	"| GN7.20XLARGE320 | 4            | 64 GB    | 80   | 320  | 8.06 USD/hr |\n" +
	"\n" +
	"### Computing GN10Xp\n" +
	"\n" +
	"| Instance Specification | GPU (Tesla V100-NVLINK-32G) | GPU Video Memory | vCPU | Memory | Pay-as-You-Go |\n" +
	"| ------------------ | -------------------------- | -------- | ---- | ----- | ----------- |\n" +
	"| GN10Xp.2XLARGE40   | 1                        | 32 GB     | 10 cores | 40 GB  | 1.72 USD/hr  |\n" +
	"\n" +
	"## Repossession Description\n" +
	"GPU instances are repossessed in the same manner as CVM instances.\n"
