// Package genfiles is how the generator's files reach the disk: the lock on the op package's
// directory, the refusal to touch a file without the generated header, the stale-file diff of
// -check, the atomic replace of each file, the refusal to replace a file another writer
// changed meanwhile, and the removal of the two-file layout's runtime file. The generator
// (package gen) only says what the files hold; ropgen generate holds the lock and calls Sync.
package genfiles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/gen"
	"github.com/ropgen/ropgen/internal/output"
)

// BeforeCommit runs between writing a generated file's temporary copy and renaming it into
// place: a test hook (ropgen's signal tests stop the process there).
var BeforeCommit = func() {}

// Sync brings the generated files in dir up to date to files (name to content; before: each
// one's content when generation began, absent for none) and reports whether any changed. With check it writes nothing and
// prints a unified diff of each stale file. It refuses to touch a file that lacks the
// generated header, checks every file before writing any, and replaces each one atomically
// (internal/output: temporary file, fsync, rename; the mode kept; a symbolic link, a
// non-regular or read-only file refused; no temporary file left after SIGINT, SIGTERM or
// SIGHUP). A file that is not as before (its content when generation began) is an error,
// not overwritten: another writer that did not take the lock came in between. Last, the
// runtime's file of the two-file layout (gen.LegacyHelpersFile) is removed: it would
// redeclare the runtime that the one file holds.
func Sync(dir string, files, before map[string][]byte, check bool, stdout io.Writer) (changed bool, err error) {
	var todo []string
	readGenerated := func(path string) ([]byte, bool, error) {
		old, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, false, nil
		case err != nil:
			return nil, false, err
		case !bytes.HasPrefix(old, []byte(gen.Header)):
			return nil, true, fmt.Errorf("refusing to overwrite %s: it does not start with %q", path, strings.TrimSpace(gen.Header))
		}
		return old, true, nil
	}
	for _, name := range sortedNames(files) {
		path := filepath.Join(dir, name)
		old, _, err := readGenerated(path)
		if err != nil {
			return false, err
		}
		if bytes.Equal(old, files[name]) {
			continue
		}
		if !check {
			if err := output.Check(path); err != nil {
				return false, err
			}
		}
		todo = append(todo, name)
		if check {
			fmt.Fprint(stdout, unifiedDiff(path, string(old), string(files[name])))
		}
	}
	legacy := filepath.Join(dir, gen.LegacyHelpersFile)
	legacyOld, legacyExists, legacyErr := readGenerated(legacy)
	removeLegacy := legacyExists && legacyErr == nil && legacyOld != nil
	if check {
		if removeLegacy {
			fmt.Fprint(stdout, unifiedDiff(legacy, string(legacyOld), ""))
		}
		return len(todo) > 0 || removeLegacy, nil
	}
	for _, name := range todo {
		if err := commitGenerated(filepath.Join(dir, name), before[name], files[name]); err != nil {
			return true, err
		}
	}
	if removeLegacy {
		if err := os.Remove(legacy); err != nil {
			return true, err
		}
	}
	return len(todo) > 0 || removeLegacy, nil
}

// commitGenerated replaces path, whose content was old when generation began (nil: absent),
// with data.
func commitGenerated(path string, old, data []byte) error {
	f, err := output.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	BeforeCommit()
	now, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		now, err = nil, nil
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(now, old) {
		return fmt.Errorf("%s changed while it was generated (another ropgen generate?); rerun", path)
	}
	return f.Commit()
}

func sortedNames(m map[string][]byte) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
