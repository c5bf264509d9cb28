// Package docs_test runs the command examples of README.md and docs/*.md: the pages are the
// source of truth, and a page whose example no longer runs as written, or no longer prints
// what the page shows, fails `make test`.
//
// How a page marks its blocks (the fence's language decides):
//
//   - ```sh: commands, run in order by bash (set -e, pipefail) in the page's work dir; every
//     command must succeed. A ```text block right after it (only blank lines between) is its
//     expected output, stdout and stderr together.
//   - ```console: a transcript. Each line starting with "$ " is a command (a line ending in
//     "\" continues it), the lines up to the next "$ " are its expected output, stdout and
//     stderr together. A command must exit 0 unless the next command is `echo $?`, which
//     then prints its status.
//   - In expected output, a line that is just "..." stands for any number of lines, and
//     "..." inside a line for any text (timings, sizes, load). Trailing spaces and trailing
//     blank lines are ignored; everything else must match.
//   - <!-- skip: REASON --> right above a sh or console block: not run, counted, and the
//     reason printed in the test's output (needs a GPU, needs ncu, takes minutes, ...).
//   - <!-- needs: TOOL[,TOOL] --> right above a block: run when every TOOL is on PATH,
//     otherwise skipped with that reason and counted.
//   - <!-- file: PATH --> right above any block: the block is written to PATH in the work dir
//     (docs/using.md writes its module's files this way).
//   - Every fence names a language: a bare ``` is an error (say text for plain text), and a
//     ```text or ```sh block that starts with "$ " is an error (say console).
//
// Each page runs in its own copy of the repository's tracked files, with ropgen, ropbench,
// roprun and ropcompare (built once by the test) on PATH, and $ROPGEN naming the tree. The
// pages run through rsc.io/script: each block is one script command whose output the
// script's next command compares.
package docs_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"rsc.io/script"
)

// block is one fenced block of a page.
type block struct {
	line  int      // the opening fence's line, 1-based
	lang  string   // the fence's language
	lines []string // the block's lines, the fence's indentation removed
	skip  string   // <!-- skip: ... --> reason
	needs []string // <!-- needs: ... --> tools
	file  string   // <!-- file: ... --> path
	want  *block   // the ```text block that shows this sh block's output
}

var markerRE = regexp.MustCompile(`^<!--\s*(skip|needs|file):\s*(.*?)\s*-->$`)

// parsePage splits a page into its fenced blocks, with the markers above each. Errors name
// page:line.
func parsePage(name, text string) ([]*block, error) {
	var (
		blocks []*block
		errs   []error
		cur    *block
		indent string
		mark   block // markers seen since the last block or prose line
		marked bool
		prev   *block // the last block, while only blank lines follow it
	)
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		trimmed := strings.TrimSpace(raw)
		if cur != nil {
			if trimmed == "```" {
				blocks = append(blocks, cur)
				prev, cur = cur, nil
				continue
			}
			cur.lines = append(cur.lines, strings.TrimPrefix(raw, indent))
			continue
		}
		switch {
		case strings.HasPrefix(trimmed, "```"):
			cur = &block{line: n, lang: strings.Fields(trimmed[3:] + " x")[0]}
			if cur.lang == "x" {
				cur.lang = ""
			}
			indent = raw[:len(raw)-len(strings.TrimLeft(raw, " "))]
			if marked {
				cur.skip, cur.needs, cur.file = mark.skip, mark.needs, mark.file
			}
			if cur.lang == "text" && prev != nil && prev.lang == "sh" && !marked {
				prev.want = cur
			}
			mark, marked, prev = block{}, false, nil
		case markerRE.MatchString(trimmed):
			m := markerRE.FindStringSubmatch(trimmed)
			switch m[1] {
			case "skip":
				mark.skip = m[2]
			case "needs":
				for _, tool := range strings.Split(m[2], ",") {
					if tool = strings.TrimSpace(tool); tool != "" {
						mark.needs = append(mark.needs, tool)
					}
				}
			case "file":
				mark.file = m[2]
			}
			if m[2] == "" {
				errs = append(errs, fmt.Errorf("%s:%d: empty %s marker", name, n, m[1]))
			}
			marked, prev = true, nil
		case trimmed == "":
		default:
			if marked {
				errs = append(errs, fmt.Errorf("%s:%d: a marker must stand right above its block (only blank lines between)", name, n))
			}
			mark, marked, prev = block{}, false, nil
		}
	}
	if cur != nil {
		errs = append(errs, fmt.Errorf("%s:%d: fenced block never closed", name, cur.line))
	}
	for _, b := range blocks {
		starts := len(b.lines) > 0 && strings.HasPrefix(b.lines[0], "$ ")
		switch {
		case b.lang == "":
			errs = append(errs, fmt.Errorf("%s:%d: a fenced block needs a language: sh or console to run it, text for output or plain text, or the file's language (yaml, go, ...)", name, b.line))
		case (b.lang == "sh" || b.lang == "text") && starts:
			errs = append(errs, fmt.Errorf("%s:%d: a %s block that starts with \"$ \" is a transcript: say console", name, b.line, b.lang))
		case b.lang == "console" && !starts:
			errs = append(errs, fmt.Errorf("%s:%d: a console block starts with a \"$ \" command", name, b.line))
		case b.skip != "" && b.lang != "sh" && b.lang != "console":
			errs = append(errs, fmt.Errorf("%s:%d: a skip marker above a %s block, which is never run", name, b.line, b.lang))
		}
	}
	return blocks, errors.Join(errs...)
}

// command is one "$ " command of a console block with its expected output.
type command struct {
	display []string // the command's lines as the page shows them, "$ " included
	want    []string
}

func transcript(b *block) []command {
	var cmds []command
	cont := false
	for _, l := range b.lines {
		switch {
		case cont:
			c := &cmds[len(cmds)-1]
			c.display = append(c.display, l)
		case strings.HasPrefix(l, "$ "):
			cmds = append(cmds, command{display: []string{l}})
		default:
			c := &cmds[len(cmds)-1]
			c.want = append(c.want, l)
			continue
		}
		cont = strings.HasSuffix(l, "\\")
	}
	return cmds
}

// shellQuote quotes s for bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// consoleDriver writes the bash script that replays a console block: it prints each
// command as the page does, runs it in the one shell (so cd and variables persist) with
// stderr on stdout, and prints "[exit status N]" after a failed command unless the next
// command is `echo $?`.
func consoleDriver(dir, base string, b *block) (string, error) {
	cmds := transcript(b)
	var sb strings.Builder
	sb.WriteString("trap 'pwd > \"$ROPDOC_PWD\"' EXIT\nrop_s=0\n")
	for i, c := range cmds {
		body := strings.Join(c.display, "\n")[2:]
		file := filepath.Join(dir, fmt.Sprintf("%s.cmd%d", base, i))
		if err := os.WriteFile(file, []byte(body+"\n"), 0o644); err != nil {
			return "", err
		}
		sb.WriteString("printf '%s\\n' " + shellQuote(strings.Join(c.display, "\n")) + "\n")
		sb.WriteString("(exit $rop_s); . " + shellQuote(file) + " 2>&1 </dev/null; rop_s=$?\n")
		if i+1 >= len(cmds) || strings.TrimSpace(strings.Join(cmds[i+1].display, "")) != "$ echo $?" {
			sb.WriteString("[ $rop_s -eq 0 ] || echo \"[exit status $rop_s]\"\n")
		}
	}
	return sb.String(), nil
}

// linePattern is one expected line: nil for a "..." line (any lines), else a regexp.
func linePattern(l string) *regexp.Regexp {
	if l == "..." {
		return nil
	}
	parts := strings.Split(l, "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

// trimLines splits text into lines without trailing spaces, trailing blank lines, or the
// blank lines that stand before a "$ " command (a transcript's spacing).
func trimLines(text string) []string {
	var lines []string
	for l := range strings.Lines(strings.ReplaceAll(text, "\r\n", "\n")) {
		l = strings.TrimRight(l, " \t\n")
		if strings.HasPrefix(l, "$ ") {
			for len(lines) > 0 && lines[len(lines)-1] == "" {
				lines = lines[:len(lines)-1]
			}
		}
		lines = append(lines, l)
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// outputMatches reports whether got matches the expected lines, with "..." as above.
func outputMatches(want, got []string) bool {
	pats := make([]*regexp.Regexp, len(want))
	for i, w := range want {
		pats[i] = linePattern(w)
	}
	memo := map[[2]int]bool{}
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if i == len(pats) {
			return j == len(got)
		}
		key := [2]int{i, j}
		if v, ok := memo[key]; ok {
			return v
		}
		var ok bool
		if pats[i] == nil {
			ok = match(i+1, j) || (j < len(got) && match(i, j+1))
		} else {
			ok = j < len(got) && pats[i].MatchString(got[j]) && match(i+1, j+1)
		}
		memo[key] = ok
		return ok
	}
	return match(0, 0)
}

// firstMismatch is the first expected line that a greedy walk cannot match, for the
// failure message.
func firstMismatch(want, got []string) (int, string) {
	j := 0
	for i, w := range want {
		p := linePattern(w)
		if p == nil {
			if i+1 == len(want) {
				return -1, ""
			}
			next := linePattern(want[i+1])
			for j < len(got) && (next == nil || !next.MatchString(got[j])) {
				j++
			}
			continue
		}
		if j >= len(got) {
			return i, "(end of output)"
		}
		if !p.MatchString(got[j]) {
			return i, got[j]
		}
		j++
	}
	if j < len(got) {
		return len(want), got[j]
	}
	return -1, ""
}

// docCmd runs a bash script file in the script's directory with stdout and stderr merged
// into stdout, and then moves the script to the directory the shell ended in.
func docCmd(strict bool) script.Cmd {
	return script.Command(script.CmdUsage{Summary: "run a page's block (a bash script)", Args: "driver.sh", Async: true},
		func(s *script.State, args ...string) (script.WaitFunc, error) {
			if len(args) != 1 {
				return nil, script.ErrUsage
			}
			pwdFile := args[0] + ".pwd"
			bashArgs := []string{"--noprofile", "--norc"}
			if strict {
				bashArgs = append(bashArgs, "-e", "-o", "pipefail")
			}
			cmd := exec.CommandContext(s.Context(), "bash", append(bashArgs, args[0])...)
			cmd.Dir = s.Getwd()
			cmd.Env = append(s.Environ(), "ROPDOC_PWD="+pwdFile)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.WaitDelay = 5 * time.Second
			if err := cmd.Start(); err != nil {
				return nil, err
			}
			return func(s *script.State) (string, string, error) {
				err := cmd.Wait()
				if pwd, rerr := os.ReadFile(pwdFile); rerr == nil {
					if cerr := s.Chdir(strings.TrimSpace(string(pwd))); cerr != nil && err == nil {
						err = cerr
					}
				}
				if err != nil {
					err = fmt.Errorf("%w\n%s", err, out.String())
				}
				return out.String(), "", err
			}, nil
		})
}

// matchCmd compares the last block's output with the page's expected output.
func matchCmd() script.Cmd {
	return script.Command(script.CmdUsage{Summary: "compare stdout with a page's expected output", Args: "want-file page:line"},
		func(s *script.State, args ...string) (script.WaitFunc, error) {
			if len(args) != 2 {
				return nil, script.ErrUsage
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return nil, err
			}
			want, got := trimLines(string(data)), trimLines(s.Stdout())
			if outputMatches(want, got) {
				return nil, nil
			}
			i, line := firstMismatch(want, got)
			where := "the output has more lines than the page shows"
			if i >= 0 && i < len(want) {
				where = fmt.Sprintf("expected line %d of the block, %q, does not match %q", i+1, want[i], line)
			} else if i == len(want) {
				where = fmt.Sprintf("the output goes on past the page's last line: %q", line)
			}
			return nil, fmt.Errorf("%s: the output differs from the page: %s\n--- page shows:\n%s\n--- command printed:\n%s",
				args[1], where, clip(want), clip(got))
		})
}

func clip(lines []string) string {
	if len(lines) > 80 {
		lines = append(slices.Clip(lines[:80]), fmt.Sprintf("... (%d more lines)", len(lines)-80))
	}
	return strings.Join(lines, "\n")
}

// pageResult counts what a page's run did.
type pageResult struct {
	run, checked int
	skipped      []string // "page:line: reason"
}

// pageScript turns a page's blocks into a script and the files it reads (in dir).
func pageScript(name string, blocks []*block, dir string, lookPath func(string) error) (string, pageResult, error) {
	var (
		sb  strings.Builder
		res pageResult
	)
	base := strings.NewReplacer("/", "_", ".", "_").Replace(name)
	for _, b := range blocks {
		where := fmt.Sprintf("%s:%d", name, b.line)
		id := fmt.Sprintf("%s-%d", base, b.line)
		if b.file != "" {
			content := strings.Join(b.lines, "\n") + "\n"
			f := filepath.Join(dir, id+".file")
			if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
				return "", res, err
			}
			fmt.Fprintf(&sb, "# %s: the file %s\nmkdir %s\ncp %s %s\n", where, b.file, filepath.Dir(b.file), f, b.file)
			continue
		}
		if b.lang != "sh" && b.lang != "console" {
			continue
		}
		reason := b.skip
		for _, tool := range b.needs {
			if reason == "" && lookPath(tool) != nil {
				reason = "needs " + tool + ", which is not on PATH"
			}
		}
		if reason != "" {
			res.skipped = append(res.skipped, where+": "+reason)
			continue
		}
		res.run++
		var driver, want string
		cmd := "docsh"
		if b.lang == "console" {
			cmd = "docconsole"
			d, err := consoleDriver(dir, id, b)
			if err != nil {
				return "", res, err
			}
			driver, want = d, strings.Join(b.lines, "\n")
		} else {
			driver = strings.Join(b.lines, "\n") + "\n"
			if b.want != nil {
				want = strings.Join(b.want.lines, "\n")
			}
		}
		driverFile := filepath.Join(dir, id+".sh")
		if b.lang == "sh" {
			driver = "trap 'pwd > \"$ROPDOC_PWD\"' EXIT\n" + driver
		}
		if err := os.WriteFile(driverFile, []byte(driver), 0o644); err != nil {
			return "", res, err
		}
		fmt.Fprintf(&sb, "# %s: %s block\n%s %s\n", where, b.lang, cmd, driverFile)
		if b.lang == "console" || b.want != nil {
			res.checked++
			wantFile := filepath.Join(dir, id+".want")
			if err := os.WriteFile(wantFile, []byte(want+"\n"), 0o644); err != nil {
				return "", res, err
			}
			wantAt := where
			if b.want != nil {
				wantAt = fmt.Sprintf("%s:%d", name, b.want.line)
			}
			fmt.Fprintf(&sb, "docmatch %s %s\n", wantFile, wantAt)
		}
	}
	return sb.String(), res, nil
}

func engine() *script.Engine {
	cmds := script.DefaultCmds()
	cmds["docsh"] = docCmd(true)
	cmds["docconsole"] = docCmd(false)
	cmds["docmatch"] = matchCmd()
	return &script.Engine{Cmds: cmds, Conds: script.DefaultConds(), Quiet: true}
}

var (
	toolsTime time.Duration // how long tools took
	toolsDir  string        // the directory tools made

	root = sync.OnceValues(func() (string, error) { return filepath.Abs("..") })

	// tools builds the commands once, in the tree itself and with the flags of go test ./...,
	// so that it only links, and from the second run of an unchanged tree not even that:
	// go run keeps the executables it links in the build cache (go install does not), and
	// -exec cp copies the cached one to the pages' PATH instead of running it.
	tools = sync.OnceValues(func() (string, error) {
		r, err := root()
		if err != nil {
			return "", err
		}
		bin, err := os.MkdirTemp("", "ropdoc-bin")
		if err != nil {
			return "", err
		}
		toolsDir = bin
		start := time.Now()
		defer func() { toolsTime = time.Since(start) }()
		// The pages run offline (goEnv), and docs/using.md's `go mod tidy` in a new module also
		// resolves the test dependencies of ropgen's dependencies (go-cmp, via x/tools), which
		// a fresh module cache lacks: fetch ropgen's whole module graph first, through the
		// environment's proxy. (Offline, because the proxy here answers 403, which go get takes
		// as fatal, for github.com/ropgen/ropgen/cmd/ropgen, a path the replace covers.)
		dl := exec.Command("go", "mod", "download", "all")
		dl.Dir = r
		if out, err := dl.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go mod download all: %v\n%s", err, out)
		}
		list := exec.Command("go", "list", "./cmd/...")
		list.Dir = r
		out, err := list.Output()
		if err != nil {
			return "", fmt.Errorf("go list ./cmd/...: %v", err)
		}
		cmds := strings.Fields(string(out))
		errs := make([]error, len(cmds))
		var wg sync.WaitGroup
		for i, pkg := range cmds {
			wg.Go(func() {
				cmd := exec.Command("go", "run", "-exec", "cp", pkg, filepath.Join(bin, path.Base(pkg)))
				cmd.Dir = r
				if out, err := cmd.CombinedOutput(); err != nil {
					errs[i] = fmt.Errorf("go run -exec cp %s: %v\n%s", pkg, err, out)
				}
			})
		}
		wg.Wait()
		return bin, errors.Join(errs...)
	})
)

// TestMain removes the commands' directory (tools), if a test made it, when the tests are
// done.
func TestMain(m *testing.M) {
	code := m.Run()
	if toolsDir != "" {
		os.RemoveAll(toolsDir)
	}
	os.Exit(code)
}

// goEnv is the pages' environment: offline (the module cache only), the toolchain that
// runs the test, and $ROPGEN naming the tree itself (root), not a page's copy. A page's go
// command builds ropgen's packages (docs/using.md's module replaces ropgen with $ROPGEN)
// from the directory and with the flags go test ./... built them with, so the build cache
// already holds them and the standard library: no -trimpath, which would compile all of
// them again.
func goEnv(env []string, root string) []string {
	return append(slices.Clip(env), "GOFLAGS=-buildvcs=false -mod=mod", "GOPROXY=off", "GOSUMDB=off",
		"GOWORK=off", "GOTOOLCHAIN=local", "ROPGEN="+root, "CI=")
}

// copyTree copies the repository's tracked files (or, without git, every file but .git
// and out) into dst. Reading every file through the test process also ties the test's
// cached result to all of them.
func copyTree(src, dst string) error {
	var files []string
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = src
	if out, err := cmd.Output(); err == nil {
		files = strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	} else {
		err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			if d.IsDir() && (rel == ".git" || rel == "out") {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() {
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, f := range files {
		if f == "" {
			continue
		}
		in, err := os.Open(filepath.Join(src, f))
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			return err
		}
		st, err := in.Stat()
		if err != nil || !st.Mode().IsRegular() {
			in.Close()
			continue
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(f)), 0o755); err != nil {
			in.Close()
			return err
		}
		out, err := os.OpenFile(filepath.Join(dst, f), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, st.Mode().Perm())
		if err == nil {
			_, err = io.Copy(out, in)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
		}
		in.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// runPage runs one page (name relative to the repository root, text its content) in a
// fresh copy of the tree and returns what it counted; a failed block is the error.
func runPage(t *testing.T, name, text string) (pageResult, error) {
	t.Helper()
	blocks, err := parsePage(name, text)
	if err != nil {
		return pageResult{}, err
	}
	bin, err := tools()
	if err != nil {
		return pageResult{}, err
	}
	r, err := root()
	if err != nil {
		return pageResult{}, err
	}
	drivers := t.TempDir()
	src, res, err := pageScript(name, blocks, drivers, func(tool string) error { _, err := exec.LookPath(tool); return err })
	if err != nil || src == "" {
		return res, err
	}
	// A page with no block to run needs no copy of the tree.
	work := filepath.Join(t.TempDir(), "ropgen")
	if err := copyTree(r, work); err != nil {
		return res, err
	}
	env := goEnv(os.Environ(), r)
	gobin := t.TempDir() // a page's own go install writes here, and its PATH finds that first
	sep := string(filepath.ListSeparator)
	env = append(env, "GOBIN="+gobin, "PATH="+gobin+sep+bin+sep+os.Getenv("PATH"), "TMPDIR="+t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := script.NewState(ctx, work, env)
	if err != nil {
		return res, err
	}
	var log strings.Builder
	err = engine().Execute(s, name, bufio.NewReader(strings.NewReader(src)), &log)
	if cerr := s.CloseAndWait(&log); err == nil {
		err = cerr
	}
	if err != nil {
		return res, fmt.Errorf("%v\nthe page's blocks, with their times:\n%s", err, sections(log.String()))
	}
	if os.Getenv("ROPDOC_LOG") != "" {
		t.Logf("script log:\n%s", log.String())
	}
	return res, nil
}

// sections keeps the section lines of a script log: each block's page:line and time (the
// failed command's output is in the error already).
func sections(log string) string {
	var b strings.Builder
	for l := range strings.Lines(log) {
		if strings.HasPrefix(l, "#") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// pages lists README.md and docs/*.md, relative to the repository root.
func pages(t *testing.T) []string {
	r, err := root()
	if err != nil {
		t.Fatal(err)
	}
	md, err := filepath.Glob(filepath.Join(r, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	list := []string{"README.md"}
	for _, m := range md {
		list = append(list, filepath.ToSlash(filepath.Join("docs", filepath.Base(m))))
	}
	return list
}

// TestDocs runs every page's examples and prints, per page, how many blocks ran, how many
// had their output checked, and every skipped block with its reason.
func TestDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command example of README.md and docs/*.md")
	}
	for _, tool := range []string{"go", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: the pages' examples need it", tool)
		}
	}
	r, err := root()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tools(); err != nil {
		t.Fatal(err)
	}
	t.Logf("go run -exec cp ./cmd/... (ropgen, ropbench, roprun, ropcompare for the pages' PATH): %.1fs", toolsTime.Seconds())
	for _, name := range pages(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join(r, name))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := runPage(t, name, string(data))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d blocks run (%d with their output checked), %d skipped, in %.1fs",
				name, res.run, res.checked, len(res.skipped), time.Since(start).Seconds())
			for _, s := range res.skipped {
				t.Logf("  skipped %s", s)
			}
		})
	}
}

func TestParsePage(t *testing.T) {
	for _, tc := range []struct{ page, err string }{
		{"```\nplain\n```\n", "page.md:1: a fenced block needs a language"},
		{"```sh\n$ ropgen validate\n```\n", `page.md:1: a sh block that starts with "$ " is a transcript: say console`},
		{"```text\n$ ropgen validate\n```\n", `page.md:1: a text block that starts with "$ " is a transcript: say console`},
		{"```console\nropgen validate\n```\n", `page.md:1: a console block starts with a "$ " command`},
		{"<!-- skip: slow -->\nprose\n```sh\nls\n```\n", "page.md:2: a marker must stand right above its block"},
		{"<!-- skip: slow -->\n```yaml\na: 1\n```\n", "page.md:2: a skip marker above a yaml block"},
		{"```sh\nls\n", "page.md:1: fenced block never closed"},
	} {
		_, err := parsePage("page.md", tc.page)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("parsePage(%q) = %v, want an error containing %q", tc.page, err, tc.err)
		}
	}
	blocks, err := parsePage("page.md", "<!-- skip: needs a GPU -->\n\n```sh\nncu\n```\n\n```text\nout\n```\n\n<!-- needs: gcc, cc -->\n  ```console\n  $ cc\n  ```\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 || blocks[0].skip != "needs a GPU" || blocks[0].want != blocks[1] ||
		!slices.Equal(blocks[2].needs, []string{"gcc", "cc"}) || blocks[2].lines[0] != "$ cc" {
		t.Errorf("blocks: %+v %+v %+v", blocks[0], blocks[1], blocks[2])
	}
}

func TestOutputMatches(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{"a\nb", "a\nb\n\n", true},
		{"a\nb", "a\nc", false},
		{"a\nb", "a", false},
		{"a", "a\nb", false},
		{"a\n...\nd", "a\nb\nc\nd", true},
		{"a\n...\nd", "a\nd", true},
		{"a\n...\nd", "a\nb\nc", false},
		{"took ...s, 0 failed", "took 2.5s, 0 failed", true},
		{"took ...s, 0 failed", "took 2.5s, 1 failed", false},
		{"x (a.b)", "x (aXb)", false}, // no regexp metacharacters
		{"$ a\n1\n\n$ b", "$ a\n1\n$ b", true},
		{"trailing  ", "trailing", true},
	} {
		if got := outputMatches(trimLines(tc.want), trimLines(tc.got)); got != tc.ok {
			t.Errorf("outputMatches(%q, %q) = %v, want %v", tc.want, tc.got, got, tc.ok)
		}
	}
}

// TestEditedOutputFails edits the expected output of README.md's validate example (a real
// block, run as the page runs it) and of a sh block's ```text output, and requires both
// edits to fail and the originals to pass.
func TestEditedOutputFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ropgen")
	}
	r, err := root()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(r, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parsePage("README.md", string(data))
	if err != nil {
		t.Fatal(err)
	}
	var validate *block
	for _, b := range blocks {
		if b.lang == "console" && strings.HasPrefix(b.lines[0], "$ ropgen validate testdata/validate/many_findings") {
			validate = b
		}
	}
	if validate == nil {
		t.Fatal("README.md has no console block running ropgen validate testdata/validate/many_findings")
	}
	real := "```console\n" + strings.Join(validate.lines, "\n") + "\n```\n"
	edited := strings.Replace(real, "must not be empty", "must not be blank", 1)
	shOK := "```sh\necho one; echo two >&2\n```\n\n```text\none\ntwo\n```\n"
	for _, tc := range []struct {
		page, fail string
	}{
		{real, ""},
		{edited, `expected line 3 of the block, "testdata/validate/many_findings/m.yaml:14:11: SiluFwd: family: must not be blank"`},
		{shOK, ""},
		{strings.Replace(shOK, "two\n```", "three\n```", 1), `page.md:5: the output differs from the page: expected line 2 of the block, "three"`},
		{"```console\n$ false\n$ true\n```\n", `expected line 2 of the block, "$ true", does not match "[exit status 1]"`},
		{"```console\n$ false\n$ echo $?\n1\n```\n", ""},
		{"```sh\ntrue\nfalse\necho unreached\n```\n", "exit status 1"},
	} {
		_, err := runPage(t, "page.md", tc.page)
		switch {
		case tc.fail == "" && err != nil:
			t.Errorf("page\n%s\nfails: %v", tc.page, err)
		case tc.fail != "" && (err == nil || !strings.Contains(err.Error(), tc.fail)):
			t.Errorf("page\n%s\n= %v, want a failure containing %q", tc.page, err, tc.fail)
		}
	}
}
