// Package tencentdocs prices Tencent Cloud's GPU instances from Tencent's
// own published price pages, kept in shared/data/price-sources:
//
//   - the China site's GPU price overview (价格总览), a transcription of
//     tencentyun/qcloud-documents at one commit: pay-as-you-go (按量计费)
//     CNY per hour and 包年包月 CNY per month, for mainland China, some as
//     ranges where the price differs by region (ParseList);
//   - the international site's CVM Linux price page: USD per hour, one
//     section per region (ParseCVMPage);
//   - the international site's GPU price overview: USD per hour, for one
//     zone (Guangzhou Zone 3) (ParseOverview).
//
// The parsers are pure functions over an io.Reader. Feed.Read joins them
// into one offering per instance type and region (and zone): a region's
// own price from the international pages where one exists (the later page
// first), else the China site's list price in each mainland region that
// Tencent's instance documentation says sells the type, at the upper end
// of a range. Every China-site row also yields its 包年包月 price as a
// one-month subscription commitment in each mainland region the type is
// offered in, at the upper end of a range. Offers keeps both ends of every
// range and the quotes set aside. The feed yields prices only; the catalog
// build joins them with the curated specs (data/curated/tencent.yaml).
package tencentdocs
