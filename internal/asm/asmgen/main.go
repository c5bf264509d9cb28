// Command asmgen writes internal/asm/f32/simd_amd64.s and its Go declarations,
// internal/asm/f32/simd_amd64_decl.go: the AVX2+FMA (8-lane) and AVX-512 (16-lane) kernels
// behind internal/asm/f32's entry points, generated with avo from one description per kernel so that both
// widths share every step.
//
//	cd internal/asm/asmgen && go run . -out ../f32/simd_amd64.s -stubs ../f32/simd_amd64_decl.go -pkg f32
//
// It is its own module so that neither f32 nor ops depends on avo; `make asm-check`
// regenerates into a temporary directory and fails when the checked-in files differ.
//
// Conventions of every kernel (internal/asm/f32/dispatch_amd64.go holds the Go side):
//   - It does the full vectors of its first input slice (len &^ (lanes-1)) and returns how
//     many elements it did. A kernel with a fast range (exp's (-87, 88), no NaN) stops at
//     the first vector with a lane outside it and returns the elements before it; the Go
//     entry point computes that vector with the scalar function and calls again.
//   - nt != 0 stores the output with non-temporal stores (the output must then be aligned
//     to 64 bytes) and ends with SFENCE.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// isa is one vector width: AVX2 (YMM, masks in vectors) or AVX-512 (ZMM, masks in K).
type isa struct {
	name  string
	lanes int
	wide  bool
}

var (
	avx2   = isa{"AVX2", 8, false}
	avx512 = isa{"AVX512", 16, true}
	cur    isa
)

func main() {
	ConstraintExpr("amd64,!purego")
	for _, w := range []isa{avx2, avx512} {
		cur = w
		unaries()
		reductions()
		expRows()
		binaries()
		layout()
		streamKernels()
	}
	outs := tempOutputs()
	Generate()
	for _, o := range outs {
		if o.flag == "out" {
			if err := pruneSelfMoves(o.tmp); err != nil {
				log.Fatal(err)
			}
		}
	}
	if err := exportNames(outs); err != nil {
		log.Fatal(err)
	}
	for _, o := range outs {
		if err := os.Rename(o.tmp, o.path); err != nil {
			log.Fatal(err)
		}
	}
}

// textName matches the symbol of a TEXT line.
var textName = regexp.MustCompile(`(?m)^TEXT ·(\w+)\(SB\)`)

// exportNames capitalizes every kernel's name in the generated files, the names f32's
// entry points and tests call: the kernels are named inside this program as the Go side once named them
// (expAVX2, ...), and their declarations are exported (ExpAVX2, ...).
func exportNames(outs []output) error {
	var asm []byte
	for _, o := range outs {
		if o.flag == "out" {
			b, err := os.ReadFile(o.tmp)
			if err != nil {
				return err
			}
			asm = b
		}
	}
	var names []string
	for _, m := range textName.FindAllSubmatch(asm, -1) {
		names = append(names, string(m[1]))
	}
	if len(names) == 0 {
		return nil
	}
	word := regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
	for _, o := range outs {
		b, err := os.ReadFile(o.tmp)
		if err != nil {
			return err
		}
		b = word.ReplaceAllFunc(b, func(n []byte) []byte { return append(bytes.ToUpper(n[:1]), n[1:]...) })
		if err := os.WriteFile(o.tmp, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// output is a file flag of avo's, written to tmp and renamed to path once avo succeeded.
type output struct{ flag, path, tmp string }

// tempOutputs parses the command line with the -out and -stubs files replaced by temporary
// ones beside them: avo creates an output file as it parses its flag, so a kernel that
// failed to compile (a register allocation that does not fit, say) would leave the
// checked-in file empty. On such a failure (avo exits) the original files are untouched and
// the temporaries (.asmgen-NAME) are left behind. os.Args is not changed, so the generated
// header names the command as it was run.
func tempOutputs() []output {
	args := slices.Clone(os.Args[1:])
	var outs []output
	for i := 0; i < len(args); i++ {
		name, val, inline := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || (name != "out" && name != "stubs") {
			continue
		}
		at := i
		if !inline {
			if at = i + 1; at >= len(args) {
				break
			}
			val, i = args[at], at
		}
		if val == "" || val == "-" {
			continue
		}
		tmp := filepath.Join(filepath.Dir(val), ".asmgen-"+filepath.Base(val))
		outs = append(outs, output{name, val, tmp})
		if inline {
			args[at] = "-" + name + "=" + tmp
		} else {
			args[at] = tmp
		}
	}
	if err := flag.CommandLine.Parse(args); err != nil {
		log.Fatal(err)
	}
	return outs
}

// selfMove matches a full-width vector move of a register onto itself, which the register
// allocator leaves where a copy's source dies at the copy (avo prunes only the integer
// ones). It is not free: Ice Lake executes every vector move (its move elimination is off),
// and exp's reduction had one per vector, one of its 19 vector instructions. Only ZMM moves
// and YMM moves in AVX2 kernels are pruned: a narrower VEX move zeroes the upper lanes.
var selfMove = regexp.MustCompile(`^\tVMOV(?:UPS|APS|DQU64|DQU32)\s+([YZ]\d+), ([YZ]\d+)$`)

// pruneSelfMoves rewrites the generated file path without its vector self-moves.
func pruneSelfMoves(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	avx2 := false
	for _, line := range bytes.SplitAfter(src, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("TEXT ")) {
			avx2 = bytes.Contains(line, []byte("AVX2("))
		}
		if m := selfMove.FindSubmatch(bytes.TrimSuffix(line, []byte("\n"))); m != nil &&
			bytes.Equal(m[1], m[2]) && (m[1][0] == 'Z' || avx2) {
			continue
		}
		out.Write(line)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".asmgen-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(out.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// vec allocates a vector register of the current width.
func vec() VecVirtual {
	if cur.wide {
		return ZMM()
	}
	return YMM()
}

// half allocates a vector of half the current width (the float32 half a float64 convert
// reads, and the float64 register of a half is a full vector).
func half() VecVirtual {
	if cur.wide {
		return YMM()
	}
	return XMM()
}

// konst is a constant operand: a float32 in every lane. It is not an avo memory operand, so
// an instruction can take one only through emit, which reads it as the current width needs:
// the whole 32-byte vector on AVX2, one float32 broadcast to every lane on AVX-512. The Go
// linker aligns a data symbol to at most 32 bytes, so a 64-byte constant read whole would
// straddle two cache lines on every read (all 68 did, at 32 mod 64: each such load costs
// two, and exp's 13 of them per vector made it a third of the speed of the same loop in C).
type konst struct {
	Mem
	bits uint32
}

var consts = map[uint32]konst{}

// c32 returns the constant holding v in every float32 lane.
func c32(v float32) konst { return cbits(math.Float32bits(v)) }

// cbits is c32 for raw lane bits.
func cbits(b uint32) konst {
	if m, ok := consts[b]; ok {
		return m
	}
	m := konst{GLOBL(fmt.Sprintf("k32_%08x", b), RODATA|NOPTR), b}
	for i := 0; i < avx2.lanes; i++ {
		DATA(4*i, U32(b))
	}
	consts[b] = m
	return m
}

// hoisted holds the constants an AVX-512 kernel keeps in registers: a loop whose
// instructions each read a constant from memory is slower than the same loop with them in
// registers, as C compilers hoist them (docs/history.md, "Constants of the AVX-512 kernels,
// exp in six FMAs", has the measurement), and AVX-512 has 32 vector registers to hold them.
// hoistKernel sets it for one kernel.
var hoisted *hoist

type hoist struct {
	regs   map[uint32]VecVirtual
	order  []konst
	left   int // registers it may still take
	tables []hoistedTable
}

type hoistedTable struct {
	t table
	r VecVirtual
}

// reg returns the register holding c, allocating one while any are left; nil when none is.
func (h *hoist) reg(c konst) Register {
	if r, ok := h.regs[c.bits]; ok {
		return r
	}
	if h.left == 0 {
		return nil
	}
	h.left--
	r := ZMM()
	h.regs[c.bits] = r
	h.order = append(h.order, c)
	return r
}

// maxHoisted is how many constants a kernel keeps in registers: the 32 ZMM registers less
// what its widest body (mish, gelu with erf) needs at once for its own values.
const maxHoisted = 16

// hoistKernel emits body, the loops of an AVX-512 kernel named name, with the constants it
// uses loaded once before them: the function jumps past its end to a block that loads them
// and comes back, since which constants the body needs is known only once it is written.
// body must end in RET. On AVX2 (16 registers) it emits body alone.
func hoistKernel(name string, body func()) {
	if !cur.wide {
		body()
		return
	}
	left := maxHoisted
	if k, ok := fewerHoisted[name]; ok {
		left = k
	}
	hoisted = &hoist{regs: map[uint32]VecVirtual{}, left: left}
	JMP(LabelRef(name + "_konst"))
	Label(name + "_body")
	body()
	h := hoisted
	hoisted = nil
	Label(name + "_konst")
	for _, c := range h.order {
		VBROADCASTSS(c.Mem, h.regs[c.bits])
	}
	for _, t := range h.tables {
		VMOVUPS(t.t.Mem, t.r)
	}
	JMP(LabelRef(name + "_body"))
}

// table is a lookup table of one float32 per lane, for perm. The linker aligns it to 32
// bytes, so on AVX-512 the whole 64 bytes straddle two cache lines: a hoisted kernel reads
// it into a register once, outside its loops (tables take no share of maxHoisted).
type table struct {
	Mem
	name string
}

var tables = map[string]table{}

// newTable returns the table named name (and the current width) holding v, one entry a lane.
func newTable(name string, v []float32) table {
	if len(v) != cur.lanes {
		panic(fmt.Sprintf("table %s: %d entries for %d lanes", name, len(v), cur.lanes))
	}
	name = fmt.Sprintf("tab_%s_%d", name, cur.lanes)
	if t, ok := tables[name]; ok {
		return t
	}
	t := table{GLOBL(name, RODATA|NOPTR), name}
	for i, f := range v {
		DATA(4*i, U32(math.Float32bits(f)))
	}
	tables[name] = t
	return t
}

// perm returns t[idx] per lane, idx being the low bits of each lane of idx (3 on AVX2, 4 on
// AVX-512; VPERMPS ignores the rest).
func perm(t table, idx Register) VecVirtual {
	var src Op = t.Mem
	if hoisted != nil && cur.wide {
		r := VecVirtual(nil)
		for _, h := range hoisted.tables {
			if h.t.name == t.name {
				r = h.r
			}
		}
		if r == nil {
			r = ZMM()
			hoisted.tables = append(hoisted.tables, hoistedTable{t, r})
		}
		src = r
	}
	d := vec()
	VPERMPS(src, idx, d)
	return d
}

// emit adds the instruction plain(ops...), or on AVX-512 bcst(ops...), its embedded-broadcast
// form, when one of ops is a konst; a konst operand is passed on as its memory operand.
func emit(plain, bcst func(...Op), ops ...Op) {
	in, k := make([]Op, len(ops)), false
	for j, o := range ops {
		if c, ok := o.(konst); ok {
			if r := hoistedReg(c); r != nil {
				o = r
			} else {
				o, k = c.Mem, true
			}
		}
		in[j] = o
	}
	if k && cur.wide {
		bcst(in...)
		return
	}
	plain(in...)
}

// kreg is the register of c in the kernel being written, or a new one loaded with it.
func kreg(c konst) Register {
	if r := hoistedReg(c); r != nil {
		return r
	}
	return ld(c)
}

// hoistedReg is the register of c in the kernel being written, or nil.
func hoistedReg(c konst) Register {
	if hoisted == nil || !cur.wide {
		return nil
	}
	return hoisted.reg(c)
}

// whole is o, or a konst's memory operand read whole: for the AVX2 instructions, which have
// no broadcast form.
func whole(o Op) Op {
	if c, ok := o.(konst); ok {
		if cur.wide {
			panic("a 32-byte constant read on AVX-512: use emit")
		}
		return c.Mem
	}
	return o
}

// bc broadcasts a float32 register or memory operand into a new vector.
func bc(src Op) VecVirtual {
	v := vec()
	VBROADCASTSS(src, v)
	return v
}

// ld loads a constant or memory operand into a new vector.
func ld(m Op) VecVirtual {
	v := vec()
	if c, ok := m.(konst); ok && cur.wide {
		if r := hoistedReg(c); r != nil {
			// a copy of the register, though it takes a vector port: broadcast loads
			// instead (here and for fma's constant) were slower on the cpu-large rows
			// (docs/history.md, "Kernel generator choices"), perhaps a load 4K-aliasing
			// the streamed stores
			VMOVUPS(r, v)
		} else {
			VBROADCASTSS(c.Mem, v)
		}
		return v
	}
	emit(VMOVUPS, nil, m, v)
	return v
}

// Arithmetic on vectors; a, the first operand, may be memory. Each returns a new register.
func add(a Op, b Register) VecVirtual  { d := vec(); emit(VADDPS, VADDPS_BCST, a, b, d); return d }
func sub(b Register, a Op) VecVirtual  { d := vec(); emit(VSUBPS, VSUBPS_BCST, a, b, d); return d } // b - a
func mul(a Op, b Register) VecVirtual  { d := vec(); emit(VMULPS, VMULPS_BCST, a, b, d); return d }
func div(b Register, a Op) VecVirtual  { d := vec(); emit(VDIVPS, VDIVPS_BCST, a, b, d); return d } // b / a
func vmin(a Op, b Register) VecVirtual { d := vec(); emit(VMINPS, VMINPS_BCST, a, b, d); return d }
func vmax(a Op, b Register) VecVirtual { d := vec(); emit(VMAXPS, VMAXPS_BCST, a, b, d); return d }

// fma returns a*b + c (c may be memory).
func fma(a, b Register, c Op) VecVirtual {
	d := vec()
	VMOVUPS(a, d)
	emit(VFMADD213PS, VFMADD213PS_BCST, c, b, d)
	return d
}

// horner evaluates the polynomial with coefficients c (highest degree first) at x.
func horner(x Register, c ...float64) VecVirtual {
	p := ld(c32(float32(c[0])))
	for _, k := range c[1:] {
		emit(VFMADD213PS, VFMADD213PS_BCST, c32(float32(k)), x, p) // p = x*p + k
	}
	return p
}

// Bitwise operations (AVX-512F has them only as integer instructions).
func and(a Op, b Register) VecVirtual {
	d := vec()
	if cur.wide {
		emit(VPANDD, VPANDD_BCST, a, b, d)
	} else {
		VPAND(whole(a), b, d)
	}
	return d
}

func or(a Op, b Register) VecVirtual {
	d := vec()
	if cur.wide {
		emit(VPORD, VPORD_BCST, a, b, d)
	} else {
		VPOR(whole(a), b, d)
	}
	return d
}

func isub(b Register, a Op) VecVirtual { d := vec(); emit(VPSUBD, VPSUBD_BCST, a, b, d); return d } // b - a, int32 lanes
func shl(n int, a Register) VecVirtual { d := vec(); VPSLLD(U8(n), a, d); return d }

// Comparison predicates of VCMPPS.
const (
	cmpEQ    = 0x00 // ordered, equal
	cmpLT    = 0x11 // ordered, less
	cmpLE    = 0x12
	cmpNEQ   = 0x0c // ordered, not equal (false for NaN)
	cmpGT    = 0x1e
	cmpNGT   = 0x1a // unordered or not greater
	cmpNLT   = 0x15 // unordered or not less
	cmpUNORD = 0x03 // either is NaN
)

// mask is a lane mask: a vector register (AVX2) or a K register (AVX-512). A mask with out
// set (AVX-512 only, from within) holds the complement as two K registers, r | out being
// the lanes not in the mask: allOr tests that with one KORTESTW.
type mask struct{ r, out Register }

// cmp returns the mask of a PRED b (b may be memory).
func cmp(pred int, a Register, b Op) mask {
	if cur.wide {
		k := K()
		emit(VCMPPS, VCMPPS_BCST, U8(pred), b, a, k)
		return mask{r: k}
	}
	d := vec()
	emit(VCMPPS, nil, U8(pred), b, a, d)
	return mask{r: d}
}

func mand(a, b mask) mask {
	if a.out != nil || b.out != nil {
		panic("mand of a complement mask")
	}
	if cur.wide {
		k := K()
		KANDW(a.r, b.r, k)
		return mask{r: k}
	}
	d := vec()
	VANDPS(a.r, b.r, d)
	return mask{r: d}
}

// sign returns the mask of the lanes of v whose sign bit is set.
func sign(v Register) mask {
	if cur.wide {
		k := K()
		emit(VPTESTMD, VPTESTMD_BCST, cbits(0x80000000), v, k)
		return mask{r: k}
	}
	return mask{r: v} // VBLENDVPS reads each lane's sign bit
}

// blend returns m ? t : f per lane.
func blend(m mask, f, t Register) VecVirtual {
	if m.out != nil {
		panic("blend by a complement mask")
	}
	d := vec()
	if cur.wide {
		VBLENDMPS(t, f, m.r, d)
	} else {
		VBLENDVPS(m.r, t, f, d)
	}
	return d
}

// allOr jumps to label unless every lane of m is set.
func allOr(m mask, label string) {
	if m.out != nil {
		KORTESTW(m.out, m.r)
		JNE(LabelRef(label)) // ZF is clear when a lane is outside
		return
	}
	if cur.wide {
		KORTESTW(m.r, m.r)
		JCC(LabelRef(label)) // CF is set when every bit is
		return
	}
	g := GP32()
	VMOVMSKPS(m.r, g)
	CMPL(g, U8(0xff))
	JNE(LabelRef(label))
}

// anyOf jumps to label when a lane of a or b is set (two masks of cmp).
func anyOf(a, b mask, label string) {
	if cur.wide {
		KORTESTW(a.r, b.r)
		JNE(LabelRef(label)) // ZF is clear when a bit of a | b is set
		return
	}
	d := vec()
	VORPS(a.r, b.r, d)
	VPTEST(d, d)
	JNE(LabelRef(label))
}

// noNaN is the check of kernels whose vector code is exact for everything but NaN.
func noNaN(x Register) mask { return cmp(cmpEQ, x, x) }

// within is the mask of lo < x < hi; on AVX-512 as the complement pair (x <= lo or NaN,
// x >= hi or NaN), one instruction fewer for allOr than the two compares and a KANDW.
func within(x Register, lo, hi float32) mask {
	if cur.wide {
		return mask{r: cmp(cmpNGT, x, c32(lo)).r, out: cmp(cmpNLT, x, c32(hi)).r}
	}
	return mand(cmp(cmpGT, x, c32(lo)), cmp(cmpLT, x, c32(hi)))
}

func above(x Register, lo float32) mask { return cmp(cmpGT, x, c32(lo)) }

// unary describes an elementwise kernel y = f(x).
type unary struct {
	name   string
	check  func(x Register) mask // the fast range; nil: every lane
	body   func(x Register, label string) VecVirtual
	params []string // float32 parameters after nt, broadcast into pv[i] for the body
	// prefetch: the kernel prefetches x prefetchAhead bytes ahead of the vector it loads,
	// for the kernels whose arithmetic is long enough to hide the memory time behind
	// (unaries() sets it for the transcendental ones)
	prefetch bool
}

// prefetchAhead is how far ahead of its loads a prefetching unary kernel prefetches: 32
// lines, the best of 1, 2 and 4 KiB in a ropbench ab of TanhFwd 4096×4096 against no
// prefetch (docs/history.md, "Kernel generator choices"); 4 KiB ahead gained nothing.
const prefetchAhead = 2048

var pv [2]VecVirtual // the broadcast parameters of a unary

// fewerHoisted are the kernels that keep fewer constants in registers than maxHoisted, the
// rest read from memory: four copies of geluErf's branching body (quartered, so that its
// streamed loop walks four streams as the other unaries do) fit in AVX-512's registers
// only beside five of them (avo's allocator fails with six).
var fewerHoisted = map[string]int{"geluErfAVX512": 5}

// loop emits the common frame: DI = y, SI = x, CX = full-vector element count, AX = i;
// body(vector offset register) for each vector, storing with VMOVUPS or VMOVNTPS.
func unaryKernel(u unary) {
	sig := "func(y, x []float32, nt int"
	for _, p := range u.params {
		sig += ", " + p + " float32"
	}
	sig += ") int"
	name := u.name + cur.name
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(fmt.Sprintf("%s computes y = %s(x) over the full %d-lane vectors of x (see asmgen).", name, u.name, cur.lanes))
	y := Load(Param("y").Base(), GP64())
	x := Load(Param("x").Base(), GP64())
	n := Load(Param("x").Len(), GP64())
	ANDQ(I32(^(cur.lanes - 1)), n)
	nt := Load(Param("nt"), GP64())
	for k, p := range u.params {
		pv[k] = bc(Load(Param(p), XMM()))
	}
	i := GP64()
	XORQ(i, i)
	hoistKernel(name, func() { unaryLoops(u, name, x, y, n, nt, i) })
}

// unaryLoops are unaryKernel's two loops (ordinary and streaming stores) and its return.
func unaryLoops(u unary, name string, x, y, n, nt, i Register) {
	for _, stream := range []bool{false, true} {
		lp := fmt.Sprintf("%s_loop%v", name, stream)
		if !stream {
			TESTQ(nt, nt)
			JNZ(LabelRef(fmt.Sprintf("%s_looptrue", name)))
		}
		bodies := 0 // each copy of the body gets its own labels
		step := func(j Register, k int, bail string) VecVirtual {
			v := vec()
			VMOVUPS(vat(x, j, k), v)
			if u.prefetch && k == 0 {
				PREFETCHT0(at(x, j).Offset(prefetchAhead))
			}
			if u.check != nil {
				allOr(u.check(v), bail)
			}
			bodies++
			return u.body(v, fmt.Sprintf("%s_b%v%d", name, stream, bodies))
		}
		if stream {
			// a vector outside the check stops the quarters: the in-order loop then
			// starts over and stops at the first such vector
			Label(lp)
			quartered(quarters{name: lp + "_q", seq: lp + "_seq", step: step, bails: u.check != nil,
				store: func(v VecVirtual, j Register, k int) { VMOVNTPS(v, vat(y, j, k)) }}, i, n)
			lp += "_seq"
		}
		Label(lp)
		CMPQ(i, n)
		JAE(LabelRef(name + "_done"))
		r := step(i, 0, name+"_done")
		if stream {
			VMOVNTPS(r, Mem{Base: y, Index: i, Scale: 4})
		} else {
			VMOVUPS(r, Mem{Base: y, Index: i, Scale: 4})
		}
		ADDQ(U8(cur.lanes), i)
		JMP(LabelRef(lp))
	}
	Label(name + "_done")
	TESTQ(nt, nt)
	JZ(LabelRef(name + "_ret"))
	SFENCE()
	Label(name + "_ret")
	Store(i, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
