package audit

import "testing"

func TestParseSimCache(t *testing.T) {
	if c, err := ParseSimCache("262144,8,64"); err != nil || c != (SimCache{262144, 8, 64}) || c.String() != "262144,8,64" {
		t.Errorf("ParseSimCache = %v, %v", c, err)
	}
	for _, bad := range []string{"262144,8", "a,8,64", "0,8,64", "1000,8,64"} {
		if _, err := ParseSimCache(bad); err == nil {
			t.Errorf("ParseSimCache(%q) accepted", bad)
		}
	}
}
