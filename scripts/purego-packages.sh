#!/bin/sh
# Prints the module's packages whose purego build can differ from the default one: those whose
# own files change with the purego tag, and the packages that import one of them. A package
# outside that set has the same files under both builds and imports only packages whose API
# the purego build cannot change, so it type-checks the same; vetting it again under purego
# would only recompile its dependencies (the standard library's crypto has purego files, and
# with it modernc.org/sqlite, libc and pgx, the largest compilations of the module).
# make test's test-purego vets this set with -tags purego.
set -eu
GO=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files='{{.ImportPath}} {{join .GoFiles ","}} {{join .SFiles ","}}'
"$GO" list -f "$files" ./... >"$tmp/default"
"$GO" list -tags purego -f "$files" ./... >"$tmp/purego"
# The packages whose file lists differ (present in one list and not the other).
sort "$tmp/default" "$tmp/purego" | uniq -u | cut -d' ' -f1 | sort -u >"$tmp/changed"
if [ ! -s "$tmp/changed" ]; then
	echo "purego-packages.sh: no package of the module has a file under the purego tag" >&2
	exit 1
fi
"$GO" list -tags purego -f '{{.ImportPath}}{{range .Imports}} {{.}}{{end}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}' ./... |
	awk 'NR == FNR { changed[$1] = 1; next }
	     { for (i = 1; i <= NF; i++) if ($i in changed) { print $1; break } }' "$tmp/changed" -
