package rules

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"
	"unicode/utf8"
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
	if err := bounded(t.Tree.Root); err != nil {
		return nil, fmt.Errorf("template %q: %v", text, err)
	}
	return t, nil
}

// bounded refuses what would make an annotation's expansion run long or
// allocate much before the output limit sees it: a range over anything but
// a variable or field ({{range 555555555555555}} loops for days, as does a
// range over a number's len), and a printf width or precision above 999
// ({{printf "%999999999d" 1}} allocates a gigabyte) or taken from an
// argument (%*d).
func bounded(n parse.Node) error {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := bounded(c); err != nil {
				return err
			}
		}
	case *parse.ActionNode:
		return boundedPipe(n.Pipe)
	case *parse.IfNode:
		return boundedBranch(&n.BranchNode)
	case *parse.WithNode:
		return boundedBranch(&n.BranchNode)
	case *parse.RangeNode:
		if len(n.Pipe.Cmds) != 1 || len(n.Pipe.Cmds[0].Args) != 1 {
			return fmt.Errorf("range may go over a variable or field only, such as {{range $k, $v := $labels}}")
		}
		switch n.Pipe.Cmds[0].Args[0].(type) {
		case *parse.VariableNode, *parse.FieldNode:
		default:
			return fmt.Errorf("range may go over a variable or field only, such as {{range $k, $v := $labels}}")
		}
		return boundedBranch(&n.BranchNode)
	case *parse.TemplateNode:
		if n.Pipe != nil {
			return boundedPipe(n.Pipe)
		}
	}
	return nil
}

func boundedBranch(b *parse.BranchNode) error {
	if err := boundedPipe(b.Pipe); err != nil {
		return err
	}
	if err := bounded(b.List); err != nil {
		return err
	}
	return bounded(b.ElseList)
}

func boundedPipe(p *parse.PipeNode) error {
	if p == nil {
		return nil
	}
	for _, c := range p.Cmds {
		for _, a := range c.Args {
			switch a := a.(type) {
			case *parse.StringNode:
				if wideVerb().MatchString(a.Text) {
					return fmt.Errorf("format %q: a width or precision above 999, or one taken from an argument (*), is not allowed", a.Text)
				}
			case *parse.PipeNode:
				if err := boundedPipe(a); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// wideVerb finds a printf verb with a width or precision of four digits or
// more, or one read from an argument.
var wideVerb = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`%[-+# 0]*(\*|[0-9]{4,}|[0-9]*\.(\*|[0-9]{4,}))`)
})

// expand runs a parsed template; a failure yields the error, never a panic.
func expand(t *template.Template, labels map[string]string, value float64) string {
	var b strings.Builder
	if err := t.Execute(&limitWriter{w: &b, n: maxAnnotation}, templateData{Labels: labels, Value: value}); err != nil {
		return "(annotation template failed: " + clip(err.Error(), maxFailure) + ")"
	}
	return b.String()
}

// maxFailure bounds the error a failed expansion reports: it may quote the
// template (a template name, a label), which is bounded only by the
// annotation's own length.
const maxFailure = 200

// clip is s cut to at most n bytes on a rune boundary, "…" marking a cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
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
