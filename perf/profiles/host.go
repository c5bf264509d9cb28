package profiles

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// CPU is what the host's CPU and kernel say about it: the device name, and the inputs of a
// theoretical ceiling and of a calibration's array sizes. Fields that cannot be read stay zero.
type CPU struct {
	Model string          // /proc/cpuinfo "model name"
	Flags map[string]bool // /proc/cpuinfo "flags" (x86) or "Features" (arm64)
	// Logical is the number of logical CPUs this process may run on; Physical the number of
	// distinct cores among them (hyperthreads of one core share its FMA pipes), 0 if unknown.
	Logical, Physical int
	// MaxMHz is cpufreq's cpuinfo_max_freq of cpu0; 0 when the kernel does not expose it
	// (common in virtual machines).
	MaxMHz float64
	// NominalMHz is /proc/cpuinfo's "cpu MHz" of the first CPU: the current clock on bare
	// metal, the nominal (TSC) clock in most virtual machines; 0 when absent.
	NominalMHz float64
	// LLCBytes is the size of cpu0's last-level cache and LLCShared the number of CPUs that
	// share it; 0 when /sys does not say.
	LLCBytes  int64
	LLCShared int
	// Caches are cpu0's data and unified caches by level, from /sys; empty when /sys does not
	// say.
	Caches []Cache
}

// Cache is one data or unified cache of cpu0: its level (1, 2, 3), size, and the number of
// CPUs that share it.
type Cache struct {
	Level  int
	Bytes  int64
	Shared int
}

// HostCPU reads /proc/cpuinfo and /sys. Model falls back to the GOARCH so the host always
// has a stable device name.
func HostCPU() CPU {
	c := CPU{Flags: map[string]bool{}, Logical: runtime.NumCPU()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20) // the flags line is long
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			switch {
			case k == "model name" && c.Model == "":
				c.Model = strings.Join(strings.Fields(v), " ")
			case k == "cpu MHz" && c.NominalMHz == 0:
				c.NominalMHz, _ = strconv.ParseFloat(v, 64)
			case (k == "flags" || k == "Features") && len(c.Flags) == 0:
				for _, fl := range strings.Fields(v) {
					c.Flags[fl] = true
				}
			}
		}
	}
	if c.Model == "" {
		c.Model = "unknown " + runtime.GOARCH
	}
	const sys = "/sys/devices/system/cpu"
	if khz, err := readNumber(sys + "/cpu0/cpufreq/cpuinfo_max_freq"); err == nil {
		c.MaxMHz = khz / 1000
	}
	if ids, err := allowedCPUs(); err == nil {
		cores := map[string]bool{}
		for _, id := range ids {
			dir := fmt.Sprintf("%s/cpu%d/topology/", sys, id)
			pkg, err1 := os.ReadFile(dir + "physical_package_id")
			core, err2 := os.ReadFile(dir + "core_id")
			if err1 != nil || err2 != nil {
				cores = nil
				break
			}
			cores[strings.TrimSpace(string(pkg))+"/"+strings.TrimSpace(string(core))] = true
		}
		c.Physical = len(cores)
	}
	c.Caches = dataCaches(sys + "/cpu0/cache")
	if n := len(c.Caches); n > 0 {
		c.LLCBytes, c.LLCShared = c.Caches[n-1].Bytes, c.Caches[n-1].Shared
	}
	return c
}

// dataCaches returns the data and unified caches under dir (a /sys cpuN/cache directory),
// one per level, in level order.
func dataCaches(dir string) []Cache {
	entries, _ := filepath.Glob(filepath.Join(dir, "index*"))
	var cs []Cache
	for _, e := range entries {
		read := func(name string) string {
			b, _ := os.ReadFile(filepath.Join(e, name))
			return strings.TrimSpace(string(b))
		}
		level, err := strconv.Atoi(read("level"))
		if err != nil || read("type") == "Instruction" {
			continue
		}
		sz, err := ParseCacheSize(read("size"))
		if err != nil {
			continue
		}
		cpus, err := ParseCPUList(read("shared_cpu_list"))
		if err != nil {
			continue
		}
		if !slices.ContainsFunc(cs, func(c Cache) bool { return c.Level == level }) {
			cs = append(cs, Cache{Level: level, Bytes: sz, Shared: len(cpus)})
		}
	}
	slices.SortFunc(cs, func(a, b Cache) int { return a.Level - b.Level })
	return cs
}

// ParseCacheSize parses a /sys cache size such as "32768K" or "1M".
func ParseCacheSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad cache size %q", s)
	}
	return n * mult, nil
}

// ParseCPUList parses a kernel CPU list such as "0-3,8,10-11".
func ParseCPUList(s string) ([]int, error) {
	var ids []int
	for part := range strings.SplitSeq(strings.TrimSpace(s), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("bad CPU list %q", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad CPU list %q", s)
			}
		}
		for id := a; id <= b; id++ {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// allowedCPUs lists the CPUs this process may run on (its affinity mask).
func allowedCPUs() ([]int, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return ParseCPUList(v)
		}
	}
	return nil, fmt.Errorf("no Cpus_allowed_list in /proc/self/status")
}

func readNumber(name string) (float64, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
}

// HostDeviceName is the device name of this machine's CPU, as the benchmark layer records it
// and as `ropgen calibrate` writes it into the host profile, so the two always match:
// "cpu: " followed by the CPU's model name.
func HostDeviceName() string { return "cpu: " + HostCPU().Model }
