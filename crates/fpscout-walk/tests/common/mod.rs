//! Shared helpers of the per-opcode tests: bit constants, flag sets, loading hand-written
//! LLVM IR, running it concretely, and a native harness (clang-19, `fetestexcept`) that
//! serves as ground truth.
#![allow(dead_code)]

pub mod ll;
pub mod tables;

use fpscout_ir::{ExceptionSet, FpOpId, Module};
use fpscout_walk::concrete::{ArgBits, ConcreteRunner, Evaluation, FpMode};
use fpscout_walk::{OpSite, WalkConfig};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

pub const SITE: OpSite = OpSite {
    op: FpOpId(0),
    lane: 0,
};

pub const FTZ: FpMode = FpMode {
    ftz: true,
    daz: false,
};
pub const DAZ: FpMode = FpMode {
    ftz: false,
    daz: true,
};
pub const FTZ_DAZ: FpMode = FpMode {
    ftz: true,
    daz: true,
};

/// Double-precision bit patterns.
pub mod d {
    pub const PZ: u64 = 0x0000_0000_0000_0000;
    pub const NZ: u64 = 0x8000_0000_0000_0000;
    pub const ONE: u64 = 0x3ff0_0000_0000_0000;
    pub const MONE: u64 = 0xbff0_0000_0000_0000;
    pub const TWO: u64 = 0x4000_0000_0000_0000;
    pub const THREE: u64 = 0x4008_0000_0000_0000;
    pub const HALF: u64 = 0x3fe0_0000_0000_0000;
    /// 0.75
    pub const Q3: u64 = 0x3fe8_0000_0000_0000;
    /// 1 - 2^-53, the largest double below 1.
    pub const BELOW_ONE: u64 = 0x3fef_ffff_ffff_ffff;
    /// Smallest subnormal 2^-1074.
    pub const MIN_SUB: u64 = 0x0000_0000_0000_0001;
    /// Largest subnormal.
    pub const MAX_SUB: u64 = 0x000f_ffff_ffff_ffff;
    /// DBL_MIN = 2^-1022.
    pub const MIN: u64 = 0x0010_0000_0000_0000;
    /// DBL_MAX.
    pub const MAX: u64 = 0x7fef_ffff_ffff_ffff;
    pub const INF: u64 = 0x7ff0_0000_0000_0000;
    pub const NINF: u64 = 0xfff0_0000_0000_0000;
    /// Quiet NaN with a payload.
    pub const QNAN: u64 = 0x7ff8_0000_0000_0123;
    /// Another quiet NaN (negative, other payload).
    pub const QNAN2: u64 = 0xfff8_0000_0000_0456;
    /// Signalling NaN and its quieted form.
    pub const SNAN: u64 = 0x7ff4_0000_0000_0000;
    pub const SNAN_Q: u64 = 0x7ffc_0000_0000_0000;
    /// x86's default NaN (negative, quiet, zero payload).
    pub const DNAN: u64 = 0xfff8_0000_0000_0000;
    /// 2^970 = half an ulp of DBL_MAX.
    pub const HALF_ULP_MAX: u64 = 0x7c90_0000_0000_0000;
    /// 2^63
    pub const P2_63: u64 = 0x43e0_0000_0000_0000;
}

/// Single-precision bit patterns.
pub mod f {
    pub const PZ: u64 = 0x0000_0000;
    pub const NZ: u64 = 0x8000_0000;
    pub const ONE: u64 = 0x3f80_0000;
    pub const MONE: u64 = 0xbf80_0000;
    pub const TWO: u64 = 0x4000_0000;
    pub const THREE: u64 = 0x4040_0000;
    pub const HALF: u64 = 0x3f00_0000;
    pub const BELOW_ONE: u64 = 0x3f7f_ffff;
    pub const MIN_SUB: u64 = 0x0000_0001;
    pub const MAX_SUB: u64 = 0x007f_ffff;
    pub const MIN: u64 = 0x0080_0000;
    pub const MAX: u64 = 0x7f7f_ffff;
    pub const INF: u64 = 0x7f80_0000;
    pub const NINF: u64 = 0xff80_0000;
    pub const QNAN: u64 = 0x7fc0_0123;
    pub const QNAN2: u64 = 0xffc0_0456;
    pub const SNAN: u64 = 0x7fa0_0000;
    pub const SNAN_Q: u64 = 0x7fe0_0000;
    pub const DNAN: u64 = 0xffc0_0000;
    /// 2^103 = half an ulp of FLT_MAX.
    pub const HALF_ULP_MAX: u64 = 0x7300_0000;
}

/// Parses `"overflow,inexact"` / `"none"` (the `Display` form of [`ExceptionSet`]).
pub fn flags(names: &str) -> ExceptionSet {
    let mut s = ExceptionSet::EMPTY;
    if names == "none" || names.is_empty() {
        return s;
    }
    for n in names.split(',') {
        let k = fpscout_ir::ExceptionKind::ALL
            .into_iter()
            .find(|k| k.name() == n.trim())
            .unwrap_or_else(|| panic!("unknown flag name {n:?}"));
        s.insert(k);
    }
    s
}

/// Target lines every hand-written module starts with, so layouts match the native build.
pub const LL_HEADER: &str = "target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128\"\ntarget triple = \"x86_64-pc-linux-gnu\"\n\n";

/// Writes `body` (after [`LL_HEADER`]) to a temporary `.ll` and lowers it.
pub fn load_ll(body: &str) -> Module {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("m.ll");
    std::fs::write(&path, format!("{LL_HEADER}{body}")).expect("write .ll");
    match fpscout_llvm::load_ir_file(&path, fpscout_llvm::LowerOptions::default()) {
        Ok(m) => m,
        Err(e) => panic!("lowering failed: {e}\n{body}"),
    }
}

/// Evaluates `name` in `module` on scalar/array arguments.
pub fn eval(module: &Module, name: &str, mode: FpMode, args: &[ArgBits]) -> Evaluation {
    let fid = module
        .find_function(name)
        .unwrap_or_else(|| panic!("no function {name}"));
    let mut r = ConcreteRunner::new(module, fid, mode, WalkConfig::default()).expect("runner");
    r.record_inexact(true);
    r.eval(args)
        .unwrap_or_else(|e| panic!("{name}({args:?}) failed: {e}"))
}

/// Evaluates on scalar arguments and returns (result bits, flags).
pub fn eval_scalar(module: &Module, name: &str, mode: FpMode, args: &[u64]) -> (u64, ExceptionSet) {
    let a: Vec<ArgBits> = args.iter().map(|&b| ArgBits::Scalar(b)).collect();
    let e = eval(module, name, mode, &a);
    let r = e
        .result_bits()
        .unwrap_or_else(|| panic!("{name}({args:x?}) did not return a value: {:?}", e.end));
    (r, e.flags)
}

/// A C type of the native harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CTy {
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
}

impl CTy {
    fn c(self) -> &'static str {
        match self {
            CTy::F32 => "float",
            CTy::F64 => "double",
            CTy::I8 => "int8_t",
            CTy::I16 => "int16_t",
            CTy::I32 => "int32_t",
            CTy::I64 => "int64_t",
            CTy::U8 => "uint8_t",
            CTy::U16 => "uint16_t",
            CTy::U32 => "uint32_t",
            CTy::U64 => "uint64_t",
        }
    }
    fn bits(self) -> u32 {
        match self {
            CTy::I8 | CTy::U8 => 8,
            CTy::I16 | CTy::U16 => 16,
            CTy::F32 | CTy::I32 | CTy::U32 => 32,
            CTy::F64 | CTy::I64 | CTy::U64 => 64,
        }
    }
    /// Expression turning the bits `b` (a `uint64_t` literal) into a value of this type.
    fn literal(self, b: u64) -> String {
        match self {
            CTy::F32 => format!("f_({b:#x}ULL)"),
            CTy::F64 => format!("d_({b:#x}ULL)"),
            t => format!("({})({b:#x}ULL)", t.c()),
        }
    }
    /// Expression turning a value `v` of this type into its zero-extended bits.
    fn bits_of(self, v: &str) -> String {
        match self {
            CTy::F32 => format!("bf_({v})"),
            CTy::F64 => format!("bd_({v})"),
            t => format!(
                "((unsigned long long)({v}) & {:#x}ULL)",
                fpscout_ir::truncate_bits(u64::MAX, t.bits())
            ),
        }
    }
}

/// One call the native harness makes.
#[derive(Clone, Debug)]
pub struct NativeCall {
    pub func: String,
    pub params: Vec<CTy>,
    pub ret: CTy,
    pub args: Vec<u64>,
    pub mode: FpMode,
}

/// Compiles `sources` (`.c` with the P flags, `.ll` at -O0) with a generated `main` that
/// performs every call under its MXCSR mode and prints result bits and `fetestexcept`
/// flags; returns one (bits, flags) per call.
pub fn run_native(
    dir: &Path,
    sources: &[(&str, &str)],
    calls: &[NativeCall],
) -> Vec<(u64, ExceptionSet)> {
    let mut h = String::from(
        "#include <fenv.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n\
         #include <xmmintrin.h>\n\
         static double d_(uint64_t b) { double x; memcpy(&x, &b, 8); return x; }\n\
         static float f_(uint64_t b) { uint32_t u = (uint32_t)b; float x; memcpy(&x, &u, 4); return x; }\n\
         static unsigned long long bd_(double x) { uint64_t b; memcpy(&b, &x, 8); return b; }\n\
         static unsigned long long bf_(float x) { uint32_t b; memcpy(&b, &x, 4); return b; }\n",
    );
    let mut declared = std::collections::HashSet::new();
    for c in calls {
        if declared.insert(c.func.clone()) {
            let ps: Vec<&str> = c.params.iter().map(|p| p.c()).collect();
            writeln!(h, "{} {}({});", c.ret.c(), c.func, ps.join(", ")).unwrap();
        }
    }
    h.push_str("int main(void) {\n");
    for c in calls {
        assert_eq!(c.params.len(), c.args.len(), "{}", c.func);
        let mxcsr = c.mode.mxcsr();
        h.push_str("  {\n");
        for (i, (p, a)) in c.params.iter().zip(&c.args).enumerate() {
            writeln!(h, "    volatile {} a{i} = {};", p.c(), p.literal(*a)).unwrap();
        }
        let argl: Vec<String> = (0..c.args.len()).map(|i| format!("a{i}")).collect();
        writeln!(
            h,
            "    _mm_setcsr({mxcsr:#x}u);\n    feclearexcept(FE_ALL_EXCEPT);\n    \
             volatile {} r = {}({});\n    int fl = fetestexcept(FE_ALL_EXCEPT);\n    \
             _mm_setcsr(0x1f80u);\n    printf(\"%llx %x\\n\", {}, fl);\n  }}",
            c.ret.c(),
            c.func,
            argl.join(", "),
            c.ret.bits_of("r")
        )
        .unwrap();
    }
    h.push_str("  return 0;\n}\n");
    let harness = dir.join("harness.c");
    std::fs::write(&harness, h).unwrap();
    let tc = fpscout_toolchain::Toolchain::discover().expect("clang-19");
    let mut objects = vec![];
    for (i, (name, text)) in sources.iter().enumerate() {
        let src = dir.join(name);
        if name.ends_with(".ll") {
            std::fs::write(&src, format!("{LL_HEADER}{text}")).unwrap();
        } else {
            std::fs::write(&src, text).unwrap();
        }
        let obj = dir.join(format!("src{i}.o"));
        let flags: Vec<String> = fpscout_toolchain::P_FLAGS
            .iter()
            .map(|s| s.to_string())
            .collect();
        tc.compile_object(&src, &flags, &obj)
            .unwrap_or_else(|e| panic!("native compile of {name}: {e}"));
        objects.push(obj);
    }
    let exe = dir.join("harness");
    let out = Command::new(&tc.clang)
        .args(["-O0", "-w"])
        .arg(&harness)
        .args(&objects)
        .args(["-lm", "-o"])
        .arg(&exe)
        .output()
        .expect("run clang");
    assert!(
        out.status.success(),
        "harness build failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe).output().expect("run harness");
    assert!(out.status.success(), "harness crashed: {out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<(u64, ExceptionSet)> = text
        .lines()
        .map(|l| {
            let (r, fl) = l.split_once(' ').expect("two fields");
            (
                u64::from_str_radix(r, 16).unwrap(),
                ExceptionSet(u8::from_str_radix(fl, 16).unwrap()),
            )
        })
        .collect();
    assert_eq!(lines.len(), calls.len(), "harness output:\n{text}");
    lines
}
