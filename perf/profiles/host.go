package profiles

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// CPU is what the host's CPU says about itself: the inputs of a theoretical ceiling.
type CPU struct {
	Model  string          // /proc/cpuinfo "model name"
	Flags  map[string]bool // /proc/cpuinfo "flags" (x86) or "Features" (arm64)
	Cores  int             // logical CPUs this process may run on
	MaxMHz float64         // cpufreq cpuinfo_max_freq of cpu0; 0 when the kernel does not expose it
}

// HostCPU reads /proc/cpuinfo and cpufreq. Fields it cannot read stay zero; Model falls back
// to the GOARCH so the host still gets a stable device name.
func HostCPU() CPU {
	c := CPU{Flags: map[string]bool{}, Cores: runtime.NumCPU()}
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
	if b, err := os.ReadFile("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"); err == nil {
		if khz, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64); err == nil {
			c.MaxMHz = khz / 1000
		}
	}
	return c
}

// HostDeviceName is the device name of this machine's CPU, as the benchmark layer records it
// and as `ropgen calibrate` writes it into the host profile, so the two always match:
// "cpu: " followed by the CPU's model name.
func HostDeviceName() string { return "cpu: " + HostCPU().Model }
