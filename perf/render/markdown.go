package render

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ropgen/ropgen/perf/report"
)

// MarkdownRows bounds each list of rows in the markdown summary: a PR comment is read at a
// glance, and the HTML report has every row.
const MarkdownRows = 15

// WriteMarkdown writes a short summary for a pull-request comment: the verdict counts, the
// comparison's counts and the rows that changed verdict or got slower against the base run
// (or, without one, the rows that need a look: formula errors and anomalies), with the
// judged efficiency where it decides a listed row's verdict (as the text table shows it);
// how many ranked rows the bytes audit judged (with -audit) and what the rate checks cannot
// convict, as the text summary ends; and where the numbers came from. Each list stops after
// MarkdownRows rows and says how many it left out.
func WriteMarkdown(w io.Writer, d *Document) error {
	bw := bufio.NewWriter(w)
	var profs []string
	for _, m := range d.Pricer.Devices() {
		if m.Profile == nil {
			profs = append(profs, fmt.Sprintf("%s: no profile", MarkdownText(m.Device)))
			continue
		}
		cal := "datasheet values"
		if at := m.Profile.Measured.At; !at.IsZero() {
			cal = "calibrated " + at.UTC().Format("2006-01-02")
		}
		profs = append(profs, fmt.Sprintf("%s: profile %s (%s, %s ceilings)", MarkdownText(m.Device), MarkdownText(m.Profile.Name), cal, d.Pricer.Basis()))
	}
	fmt.Fprintf(bw, "### ropgen report\n\n**%s**\n\n", VerdictCounts(d.Rows))
	if sd := SideBySide(d.Rows); sd != nil {
		for i := 1; i < len(sd.Impls); i++ {
			fmt.Fprintf(bw, "**%s.**\n\n", MarkdownText(sd.TallyLine(i)))
		}
	}
	if c := d.Comparison; c != nil {
		fmt.Fprintf(bw, "**Against the base: %s.**\n\n", c.Summary())
		if w := c.Warning(); w != "" {
			fmt.Fprintf(bw, "> Note: %s.\n\n", w)
		}
		var changed, slower []*Delta
		for i := range c.Deltas {
			dl := &c.Deltas[i]
			if dl.VerdictChanged() {
				changed = append(changed, dl)
			} else if dl.Change == Slower {
				slower = append(slower, dl)
			}
		}
		if len(changed) > 0 {
			fmt.Fprintf(bw, "Changed verdict (%s):\n\n", plural(len(changed), "row"))
			mdDeltas(bw, changed)
		} else {
			fmt.Fprintf(bw, "No row changed verdict.\n\n")
		}
		if len(slower) > 0 {
			fmt.Fprintf(bw, "Slower, same verdict (%s):\n\n", plural(len(slower), "row"))
			mdDeltas(bw, slower)
		}
	} else {
		var look []*report.Row
		for i := range d.Rows {
			if v := d.Rows[i].Verdict; v == report.FormulaError || v == report.Anomaly {
				look = append(look, &d.Rows[i])
			}
		}
		if len(look) > 0 {
			judged := slices.ContainsFunc(look[:min(len(look), MarkdownRows)], judgedDecides)
			fmt.Fprintf(bw, "To look at (%s):\n\n", plural(len(look), "row"))
			if judged {
				bw.WriteString("| row | eff | judged | verdict | note |\n|---|--:|--:|---|---|\n")
			} else {
				bw.WriteString("| row | eff | verdict | note |\n|---|--:|---|---|\n")
			}
			for i, r := range look {
				if i == MarkdownRows {
					fmt.Fprintf(bw, "\n… and %d more (see the HTML report).\n", len(look)-i)
					break
				}
				fmt.Fprintf(bw, "| %s | %s |", MarkdownText(report.ShortName(r.Rec.Op+"/"+r.Rec.Workload+"/"+r.Rec.DType)), report.Percent(r.Efficiency))
				if judged {
					fmt.Fprintf(bw, " %s |", judgedCell(r))
				}
				fmt.Fprintf(bw, " %s | %s |\n", r.Verdict, MarkdownText(r.Note))
			}
			bw.WriteString("\n")
		}
	}
	if line := AuditLine(Rank(d.Rows), d.AuditFile != ""); line != "" {
		bw.WriteString(line + ".\n\n")
	}
	writePhysicsPower(bw, d.Rows)
	bw.WriteString("\n")
	fmt.Fprintf(bw, "<sub>%s; records %s", strings.Join(profs, "; "), mdList(d.Files))
	if len(d.BaseFiles) > 0 {
		fmt.Fprintf(bw, " against %s", mdList(d.BaseFiles))
	}
	if d.AuditFile != "" {
		fmt.Fprintf(bw, "; bytes audit %s", MarkdownText(d.AuditFile))
	}
	if d.Commit != "" {
		fmt.Fprintf(bw, "; commit %s", MarkdownText(d.Commit))
	}
	if !d.Date.IsZero() {
		fmt.Fprintf(bw, "; %s", d.Date.UTC().Format("2006-01-02 15:04 UTC"))
	}
	bw.WriteString(".</sub>\n")
	return bw.Flush()
}

// mdDeltas lists compared rows; a judged column (the new run's judged efficiency, which its
// verdict reads) appears when it decides a listed row's new verdict.
func mdDeltas(bw *bufio.Writer, ds []*Delta) {
	judged := slices.ContainsFunc(ds[:min(len(ds), MarkdownRows)], func(d *Delta) bool { return judgedDecides(d.NewRow) })
	if judged {
		bw.WriteString("| row | base | new | Δ time | p | eff | judged | verdict |\n|---|--:|--:|--:|--:|--:|--:|---|\n")
	} else {
		bw.WriteString("| row | base | new | Δ time | p | eff | verdict |\n|---|--:|--:|--:|--:|--:|---|\n")
	}
	for i, d := range ds {
		if i == MarkdownRows {
			fmt.Fprintf(bw, "\n… and %d more (see the HTML report).\n", len(ds)-i)
			break
		}
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s |", MarkdownText(report.ShortName(d.Name())), sampledTime(d.Old), sampledTime(d.New),
			deltaText(d), pText(d.P), effText(d))
		if judged {
			cell := ""
			if d.NewRow != nil {
				cell = judgedCell(d.NewRow)
			}
			fmt.Fprintf(bw, " %s |", cell)
		}
		fmt.Fprintf(bw, " %s |\n", MarkdownText(verdictText(d)))
	}
	bw.WriteString("\n")
}

// MarkdownText makes s, text from the data (a record's names, a file name, a profile's name or a
// commit), plain text wherever the summary puts it: a table cell, a paragraph, the <sub>
// line. Every ASCII punctuation character that can open or close markdown (emphasis, code
// spans, links, images, raw HTML, entities, autolinks, math, table cells) is
// backslash-escaped, which CommonMark and GitHub define as that character, literally; a line
// break or any other control character would end the row or the paragraph, so it is a space;
// invalid UTF-8 is U+FFFD. What is left as it is (letters, digits, spaces, non-ASCII and the
// punctuation outside mdSpecial) opens nothing inside a line.
func MarkdownText(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r < utf8.RuneSelf && strings.ContainsRune(mdSpecial, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case isControl(r):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdSpecial is the ASCII punctuation MarkdownText escapes: all of it but "/,-=+%;?'\"", which
// open nothing inside a line (a line never starts with data).
const mdSpecial = "!#$&()*.:<>@[\\]^_`{|}~"

// mdList is a list of names from the data, each plain text.
func mdList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = MarkdownText(n)
	}
	return strings.Join(out, ", ")
}
