package render

import (
	"bytes"
	"strings"
	"testing"
)

func sample() *Table {
	return &Table{
		Columns: []Column{{Header: "NAME"}, {Header: "REGION"}, {Header: "PRICE", Right: true}},
		Rows:    [][]string{{"a|b", "华东1", "1.50"}, {"longer-name", "us-east-1", "12.00"}},
		Notes:   []string{"note one"},
	}
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := sample().Write(&b, FormatTable, Options{}); err != nil {
		t.Fatal(err)
	}
	want := "NAME         REGION     PRICE\n" +
		"a|b          华东1       1.50\n" + // 华东1 is 5 cells wide: two wide characters and a digit
		"longer-name  us-east-1  12.00\n" +
		"note one\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	sample().Write(&b, FormatTable, Options{Color: true})
	if !strings.HasPrefix(b.String(), "\x1b[1mNAME") {
		t.Error("colour option does not bold the header")
	}
}

func TestMarkdownAndCSV(t *testing.T) {
	var b bytes.Buffer
	sample().Write(&b, FormatMarkdown, Options{})
	if !strings.Contains(b.String(), "| a\\|b | 华东1 | 1.50 |") || !strings.Contains(b.String(), "| --- | --- | ---: |") {
		t.Errorf("markdown:\n%s", b.String())
	}
	b.Reset()
	sample().Write(&b, FormatCSV, Options{})
	if b.String() != "NAME,REGION,PRICE\na|b,华东1,1.50\nlonger-name,us-east-1,12.00\n" {
		t.Errorf("csv:\n%s", b.String())
	}
	if _, err := ParseFormat("yaml"); err == nil {
		t.Error("yaml accepted as a format")
	}
}

// TestCSVIsRaw: CSV has no thousands separators, markers in their own
// columns, the currency in a column, missing values empty.
func TestCSVIsRaw(t *testing.T) {
	tb := &Table{Columns: []Column{{Header: "NAME"}, {Header: "TOTAL", Right: true}, {Header: "SAVED", Right: true}, {Header: "TERM"}},
		Rows: [][]string{
			{"a", "1,337.28*", "12.5%", "-"},
			{"b", "665.28 +?", "-", "1y"},
			{"c", "unknown", "3%", "-"},
		}, Currency: "CNY"}
	var b bytes.Buffer
	if err := tb.Write(&b, FormatCSV, Options{}); err != nil {
		t.Fatal(err)
	}
	want := "NAME,TOTAL,SAVED %,TERM,CURRENCY,CONVERTED,PARTIAL\n" +
		"a,1337.28,12.5,-,CNY,true,false\n" +
		"b,665.28,,1y,CNY,false,true\n" +
		"c,,3,-,CNY,false,false\n"
	if b.String() != want {
		t.Errorf("csv:\n%s\nwant:\n%s", b.String(), want)
	}
}

// An empty listing prints its notes without a header over nothing.
func TestEmptyTableHasNoHeader(t *testing.T) {
	var b bytes.Buffer
	tb := &Table{Columns: []Column{{Header: "NAME"}}, Notes: []string{"No offering matches."}}
	if err := tb.Write(&b, FormatTable, Options{}); err != nil {
		t.Fatal(err)
	}
	if b.String() != "No offering matches.\n" {
		t.Errorf("got %q", b.String())
	}
}
