// Package browsercheck holds no code, only tests: it renders gpuscout's
// pictures end to end through the CLI (the advise plan report, the spot and
// cost charts) and looks at them in headless Chromium at 1400, 1024 and
// 400 px, checking from the browser's own layout that nothing overflows the
// page sideways, that text boxes do not overlap and that chart text stays
// readable. Screenshots of every page at every width are kept as test
// artefacts (under $GPUSCOUT_ARTEFACTS/browser, else artefacts/browser at the
// repository root).
//
// The tests skip when Chromium is not installed, unless
// GPUSCOUT_REQUIRE_BROWSER=1 (scripts/test.sh sets it once it has installed
// the browser), so that CI cannot skip them silently.
package browsercheck
