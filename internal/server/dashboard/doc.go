// Package dashboard serves the team server's web pages: an overview, the
// catalog browser, the price/performance scatter, the leaderboard of price
// per measured unit of work, the uploaded bench reports and their
// comparison, uploaded plans and spot risk. Pages are rendered on the
// server with html/template (every text escaped), their charts are the
// render package's SVG (the same code as the CLI's --chart and --report),
// and they need no script: a strict Content-Security-Policy forbids any.
//
// Pages are cached. Those that depend only on their URL, the catalog and
// the day (the catalog browser, spot risk, a plan: a document never
// changes) are kept for the day. Those built from the store (the overview,
// the reports, a report, the comparison, the leaderboard, price/performance)
// are kept, final bytes and headers with the CSP's hashes, by method, path
// and sorted query.
//
// Uploads. The server calls Handler.Stored after each upload that created
// a document, before it answers the upload. Only the pages that read
// documents of its kind change: a bench report the overview, the report
// list, the leaderboard and price/performance; a plan the overview and the
// plan list; an agent summary the overview and the agent list (a page of
// one report or a comparison reads only documents that never change). A
// bench report is added to the newest bench reports the dashboard keeps in
// memory, decoded and priced, so that the leaderboard and
// price/performance are built again without reading the store; a plan's
// gist and an agent summary, as the server decoded them, to those kept
// (their lists read the store's index fields, not the bodies). Then the
// pages of its kind that were read since their last render are rendered
// again (one render at a time per page; uploads meanwhile share the next),
// and Stored returns.
//
// What a reader sees (on this server):
//   - a read that begins after an upload was answered shows it: the
//     uploader's own next read, and everyone else's;
//   - a read concurrent with an upload shows the page with or without it:
//     while the upload's render runs, readers are served the page as it
//     was, and never wait on a render an upload caused;
//   - a page not read since an upload before (or one over the few an
//     upload renders) is rendered by its next reader, who waits for it, as
//     on a miss;
//   - Handler.Invalidate drops every page (and the reports kept in
//     memory): the next request for each renders it from the store.
//
// Other replicas. With several servers on one PostgreSQL, an upload
// through another shows within Config.CacheTTL (DefaultCacheTTL, 2 s) plus
// one render: a page past its TTL is served once more while a background
// render refreshes it, reading the bench reports from the store again (in
// one query for the listing and one for the bodies of reports not decoded
// yet). Concurrent requests for a page not cached render it once; the
// cache and the reports kept are bounded.
//
// The package does not import internal/server: the server mounts New's
// handler under "/".
package dashboard
