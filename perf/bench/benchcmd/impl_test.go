package benchcmd

import "testing"

func TestImplName(t *testing.T) {
	// This test binary is built in ropgen's module: ropbench's records say ropgen.
	if got := ImplName("ropbench"); got != "ropgen" {
		t.Errorf("ImplName = %q, want ropgen", got)
	}
	for path, want := range map[string]string{
		"github.com/ropgen/ropgen": "ropgen", "example.com/fastops": "fastops", "example.com/k/v2": "k",
		"mykernels": "mykernels", "example.com/v2": "example.com", "example.com/vendor": "vendor",
	} {
		if got := moduleImpl(path); got != want {
			t.Errorf("moduleImpl(%q) = %q, want %q", path, got, want)
		}
	}
}
