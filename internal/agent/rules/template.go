package rules

import (
	"fmt"
	"strings"
	"text/template"
)

// Annotation templates see $labels (the alert's labels), $value (the
// rule's value) and two functions of ours: humanizePercentage (0.93 →
// "93%") and printf. text/template's other built-ins (index, len, eq, ...)
// read data only; no function can reach the file system, the network or a
// process.
const templatePrelude = `{{$labels := .Labels}}{{$value := .Value}}`

// maxAnnotation bounds an expanded annotation.
const maxAnnotation = 4096

var templateFuncs = template.FuncMap{
	"humanizePercentage": func(v float64) string {
		return fmt.Sprintf("%.4g%%", v*100) // as Prometheus's humanizePercentage
	},
	"printf": fmt.Sprintf,
}

type templateData struct {
	Labels map[string]string
	Value  float64
}

func parseTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Funcs(templateFuncs).Option("missingkey=zero").Parse(templatePrelude + text)
	if err != nil {
		return nil, fmt.Errorf("template %q: %v", text, strings.TrimPrefix(err.Error(), "template: "))
	}
	return t, nil
}

// expand runs a parsed template; a failure yields the error, never a panic.
func expand(t *template.Template, labels map[string]string, value float64) string {
	var b strings.Builder
	if err := t.Execute(&limitWriter{w: &b, n: maxAnnotation}, templateData{Labels: labels, Value: value}); err != nil {
		return "(annotation template failed: " + err.Error() + ")"
	}
	return b.String()
}

type limitWriter struct {
	w *strings.Builder
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if len(p) > l.n {
		l.w.Write(p[:l.n])
		l.n = 0
		return 0, fmt.Errorf("annotation longer than %d bytes", maxAnnotation)
	}
	l.n -= len(p)
	return l.w.Write(p)
}
