package browsercheck

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

//go:embed testdata/measure.js
var measureJS string

// widths are the viewport widths every page is looked at: a desktop, a
// laptop or tablet, and a phone.
var widths = []int{1400, 1024, 400}

// viewportHeight is the height of the emulated window (screenshots take the
// whole page whatever it is).
const viewportHeight = 900

// requireEnv makes a missing browser a failure instead of a skip.
const requireEnv = "GPUSCOUT_REQUIRE_BROWSER"

// browser is the one Chromium every test of the package shares; pages open
// as tabs in it.
var browser struct {
	once    sync.Once
	ctx     context.Context // a chromedp context that has run once: the browser is up
	err     error           // why there is no browser
	missing bool            // no chromium on PATH (a skip unless required)
	cancel  []func()
	profile string
}

func TestMain(m *testing.M) {
	code := m.Run()
	for i := len(browser.cancel) - 1; i >= 0; i-- {
		browser.cancel[i]()
	}
	if browser.profile != "" {
		os.RemoveAll(browser.profile)
	}
	os.Exit(code)
}

// chromiumPath finds Debian's chromium (or a Chromium by another name).
func chromiumPath() (string, error) {
	if p := os.Getenv("GPUSCOUT_CHROMIUM"); p != "" {
		return exec.LookPath(p)
	}
	var err error
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		var p string
		if p, err = exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", err
}

// startBrowser starts headless Chromium once, with the flags a closed
// network and a root user need and a fresh profile.
func startBrowser() {
	path, err := chromiumPath()
	if err != nil {
		browser.missing = true
		browser.err = fmt.Errorf("chromium not found on PATH (Debian: apt-get install chromium; or set GPUSCOUT_CHROMIUM): %v", err)
		return
	}
	browser.profile, err = os.MkdirTemp("", "gpuscout-chromium-")
	if err != nil {
		browser.err = err
		return
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(browser.profile),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.WindowSize(widths[0], viewportHeight),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	browser.cancel = append(browser.cancel, cancelA, cancelB)
	start := make(chan error, 1)
	go func() { start <- chromedp.Do(ctx) }()
	select {
	case err = <-start:
	case <-time.After(60 * time.Second):
		err = fmt.Errorf("chromium at %s did not start within 60 s", path)
	}
	if err != nil {
		browser.err = fmt.Errorf("starting chromium at %s: %w", path, err)
		return
	}
	browser.ctx = ctx
}

// needBrowser returns the shared browser's context, or skips the test (fails
// it when GPUSCOUT_REQUIRE_BROWSER=1 or when an installed browser does not
// start).
func needBrowser(t *testing.T) context.Context {
	t.Helper()
	browser.once.Do(startBrowser)
	if browser.err != nil {
		if browser.missing && os.Getenv(requireEnv) != "1" {
			t.Skipf("browser checks skipped: %v (set %s=1 to make this a failure)", browser.err, requireEnv)
		}
		if browser.missing {
			t.Fatalf("%v (%s=1: a missing browser is a failure)", browser.err, requireEnv)
		}
		t.Fatal(browser.err)
	}
	return browser.ctx
}

// tab opens a new tab in the shared browser, closed when the test ends.
func tab(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(needBrowser(t))
	t.Cleanup(cancel)
	// The first run on a tab binds the tab's life to its context: open it
	// here, without the per-page timeout that look sets.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	return ctx
}

// look loads url in the tab at the given width, measures its layout and
// takes a full-page screenshot (PNG).
func look(ctx context.Context, url string, width int, navigate bool) (layout, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second) // 2 busy cores, a long page
	defer cancel()
	steps := []chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(int64(width), viewportHeight)}
	if navigate {
		steps = append(steps, chromedp.Navigate(url))
	}
	if err := chromedp.Do(ctx, steps...); err != nil {
		return layout{}, nil, err
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](measureJS))
	if err != nil {
		return layout{}, nil, fmt.Errorf("measuring: %w", err)
	}
	var l layout
	if err := json.Unmarshal(raw, &l); err != nil {
		return layout{}, nil, fmt.Errorf("reading the measurements: %w", err)
	}
	png, err := chromedp.Run(ctx, fullPNG)
	if err != nil {
		return l, nil, fmt.Errorf("screenshot: %w", err)
	}
	return l, png, nil
}

// maxShotHeight bounds a screenshot's height in CSS pixels: a long report is
// 8,000 to 21,000 px tall at these widths, and a PNG of all of it costs
// seconds under the race detector. The checks still cover the whole page.
const maxShotHeight = 5000

// fullPNG takes a PNG of the whole page, as wide as its content (an
// overflowing page shows its overflow) and at most maxShotHeight tall,
// encoded for speed rather than size.
func fullPNG(ctx context.Context, t *chromedp.Target) ([]byte, error) {
	m, err := cdp.Call(ctx, t, cdppage.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	clip := &cdppage.Viewport{Width: float64(widths[0]), Height: viewportHeight, Scale: 1}
	if c := m.CSSContentSize; c != nil {
		clip.Width, clip.Height = c.Width, min(c.Height, maxShotHeight)
	}
	yes := true
	r, err := cdp.Call(ctx, t, cdppage.CaptureScreenshot, cdppage.CaptureScreenshotParams{
		Format:                cdppage.CaptureScreenshotFormatPng,
		Clip:                  clip,
		CaptureBeyondViewport: &yes,
		FromSurface:           &yes,
		OptimizeForSpeed:      &yes,
	})
	return r.Data, err
}

// artefactDir is where screenshots go: $GPUSCOUT_ARTEFACTS/browser, else
// artefacts/browser at the repository root (gitignored). A relative
// $GPUSCOUT_ARTEFACTS is taken from the repository root, as scripts/test.sh
// prints it.
func artefactDir(t *testing.T) string {
	t.Helper()
	repo := filepath.Join("..", "..") // go test runs in internal/browsercheck
	root := filepath.Join(repo, "artefacts")
	if env := os.Getenv("GPUSCOUT_ARTEFACTS"); env != "" {
		root = env
		if !filepath.IsAbs(root) {
			root = filepath.Join(repo, root)
		}
	}
	dir := filepath.Join(root, "browser")
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("artefacts folder: %v", err)
	}
	return dir
}
