//! Traced native execution: the executable's own ordered exception trace, symbolised.
//!
//! The driver's `trace` mode (module `driver`) unmasks the SSE exceptions around the call and
//! records, per trapping instruction, the flags that instruction raised and where it sits:
//! `<flags>:<address>:<how>` with `how` one of `d` (an instruction of the executable),
//! `c` (inside a shared library, charged to the executable's call instruction at
//! `address`), `u` (inside a shared library, no call site found: `address` is absolute)
//! and `x` (x87 flags, which do not trap here: sticky, unlocated). [`Symbolizer`] turns
//! addresses into the instruction mnemonic (iced-x86), the called function for calls
//! (through the PLT's relocations, object) and the source location (DWARF line table,
//! addr2line).

use fpscout_ir::{ExceptionSet, SourceLoc};
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// How the driver located one trapped instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RawSite {
    /// An instruction of the executable, at this link-time address.
    Direct(u64),
    /// Inside a shared library (libm); the executable's call instruction at this address.
    ViaCall(u64),
    /// Inside a shared library, no call site found; absolute run-time address.
    Unlocated(u64),
    /// x87 status flags after the call (x87 code does not trap here).
    X87,
}

/// One trapped instruction as the driver reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawEvent {
    /// Exactly the flags this instruction raised (inexact included).
    pub flags: ExceptionSet,
    pub site: RawSite,
}

/// One event of a native trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NativeEvent {
    /// The flags the instruction raised (inexact included).
    pub flags: ExceptionSet,
    /// Mnemonic of the instruction (`addpd`, `cvttsd2si`); `call` for a library call;
    /// `x87` for x87 status flags; `?` when unknown.
    pub insn: String,
    /// The function a `call` went to (`exp`), when known.
    pub callee: Option<String>,
    /// Link-time address of the instruction in the executable.
    pub addr: Option<u64>,
    /// Source location from the executable's DWARF line table.
    pub loc: Option<SourceLoc>,
}

impl NativeEvent {
    /// `addpd`, or `call exp`.
    pub fn describe_insn(&self) -> String {
        match &self.callee {
            Some(c) => format!("{} {c}", self.insn),
            None => self.insn.clone(),
        }
    }
}

/// The ordered exception trace of one native call.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NativeTrace {
    pub events: Vec<NativeEvent>,
    /// More instructions trapped than the driver records (1024): the rest of the call ran
    /// untraced (its flags still count in the outcome).
    pub truncated: bool,
}

/// Parses the part of a trace report after `|`: `<truncated> <event>...`.
pub(crate) fn parse_raw(text: &str) -> Result<(bool, Vec<RawEvent>), String> {
    let mut tokens = text.split_ascii_whitespace();
    let truncated = match tokens.next() {
        Some("0") => false,
        Some("1") => true,
        other => return Err(format!("bad truncation marker {other:?}")),
    };
    let mut events = Vec::new();
    for t in tokens {
        let mut parts = t.split(':');
        let (Some(flags), Some(addr), Some(how), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(format!("bad event token {t:?}"));
        };
        let hex = |s: &str| u64::from_str_radix(s, 16).map_err(|_| format!("bad hex in {t:?}"));
        let flags = hex(flags)?;
        if flags & !0x3d != 0 {
            return Err(format!("flags outside the IEEE set in {t:?}"));
        }
        let addr = hex(addr)?;
        let site = match how {
            "d" => RawSite::Direct(addr),
            "c" => RawSite::ViaCall(addr),
            "u" => RawSite::Unlocated(addr),
            "x" => RawSite::X87,
            _ => return Err(format!("bad event kind in {t:?}")),
        };
        events.push(RawEvent {
            flags: ExceptionSet::from_mxcsr(flags as u32),
            site,
        });
    }
    Ok((truncated, events))
}

/// What one address of the executable is.
#[derive(Clone, Debug, Default)]
struct AddrInfo {
    insn: String,
    callee: Option<String>,
    loc: Option<SourceLoc>,
}

/// Maps addresses of one executable to instructions, callees and source lines.
pub struct Symbolizer {
    lines: Option<addr2line::Loader>,
    /// Executable sections: (address, bytes).
    code: Vec<(u64, Vec<u8>)>,
    /// GOT slot address → symbol name, from the dynamic relocations.
    got_slots: HashMap<u64, String>,
    /// Function symbols of the executable itself: address → name.
    functions: HashMap<u64, String>,
    cache: HashMap<u64, AddrInfo>,
}

impl Symbolizer {
    /// Reads the executable's sections, relocations, symbols and DWARF.
    pub fn open(exe: &Path) -> Result<Symbolizer, String> {
        use object::{Object, ObjectSection, ObjectSymbol, ObjectSymbolTable, SectionKind};
        let data = std::fs::read(exe).map_err(|e| format!("reading {}: {e}", exe.display()))?;
        let file =
            object::File::parse(&*data).map_err(|e| format!("parsing {}: {e}", exe.display()))?;
        let code = file
            .sections()
            .filter(|s| s.kind() == SectionKind::Text)
            .filter_map(|s| Some((s.address(), s.data().ok()?.to_vec())))
            .collect();
        let mut got_slots = HashMap::new();
        if let (Some(relocs), Some(dynsyms)) =
            (file.dynamic_relocations(), file.dynamic_symbol_table())
        {
            for (slot, reloc) in relocs {
                if let object::RelocationTarget::Symbol(idx) = reloc.target() {
                    if let Some(name) = dynsyms
                        .symbol_by_index(idx)
                        .ok()
                        .and_then(|s| s.name().ok())
                    {
                        got_slots.insert(slot, strip_version(name).to_string());
                    }
                }
            }
        }
        let functions = file
            .symbols()
            .filter(|s| s.kind() == object::SymbolKind::Text && s.address() != 0)
            .filter_map(|s| Some((s.address(), s.name().ok()?.to_string())))
            .collect();
        // Without DWARF (an IR file compiled without -g) events still get instructions.
        let lines = addr2line::Loader::new(exe).ok();
        Ok(Symbolizer {
            lines,
            code,
            got_slots,
            functions,
            cache: HashMap::new(),
        })
    }

    /// Symbolises the driver's raw events.
    pub fn events(&mut self, raw: &[RawEvent]) -> Vec<NativeEvent> {
        raw.iter()
            .map(|e| {
                let addr = match e.site {
                    RawSite::Direct(a) | RawSite::ViaCall(a) => Some(a),
                    RawSite::Unlocated(_) | RawSite::X87 => None,
                };
                let info = match e.site {
                    RawSite::X87 => AddrInfo {
                        insn: "x87".into(),
                        ..AddrInfo::default()
                    },
                    RawSite::Unlocated(_) => AddrInfo {
                        insn: "?".into(),
                        ..AddrInfo::default()
                    },
                    RawSite::Direct(a) | RawSite::ViaCall(a) => self.info(a).clone(),
                };
                NativeEvent {
                    flags: e.flags,
                    insn: info.insn,
                    callee: info.callee,
                    addr,
                    loc: info.loc,
                }
            })
            .collect()
    }

    fn info(&mut self, addr: u64) -> &AddrInfo {
        if !self.cache.contains_key(&addr) {
            let info = self.compute(addr);
            self.cache.insert(addr, info);
        }
        &self.cache[&addr]
    }

    fn compute(&self, addr: u64) -> AddrInfo {
        let insn = self.decode(addr);
        let (insn_name, callee) = match insn {
            Some(i) if i.mnemonic() == iced_x86::Mnemonic::Call => {
                ("call".to_string(), self.callee(&i))
            }
            Some(i) => (mnemonic_name(i.mnemonic()), None),
            None => ("?".to_string(), None),
        };
        let loc = self.lines.as_ref().and_then(|l| {
            let loc = l.find_location(addr).ok()??;
            Some(SourceLoc {
                file: display_path(loc.file?),
                line: loc.line?,
                col: loc.column.unwrap_or(0),
            })
        });
        AddrInfo {
            insn: insn_name,
            callee,
            loc,
        }
    }

    fn decode(&self, addr: u64) -> Option<iced_x86::Instruction> {
        let (start, bytes) = self
            .code
            .iter()
            .find(|(start, bytes)| (*start..*start + bytes.len() as u64).contains(&addr))?;
        let from = (addr - start) as usize;
        let mut decoder =
            iced_x86::Decoder::with_ip(64, &bytes[from..], addr, iced_x86::DecoderOptions::NONE);
        let insn = decoder.decode();
        (!insn.is_invalid()).then_some(insn)
    }

    /// The function a call instruction reaches: through a GOT slot (`call *x(%rip)`, or a
    /// PLT stub's `jmp *x(%rip)`), or a function of the executable.
    fn callee(&self, call: &iced_x86::Instruction) -> Option<String> {
        if call.is_ip_rel_memory_operand() {
            return self.got_slots.get(&call.ip_rel_memory_address()).cloned();
        }
        let target = call.near_branch_target();
        if let Some(name) = self.functions.get(&target) {
            return Some(name.clone());
        }
        // A PLT stub: endbr64 and bnd prefixes aside, one indirect jump through the GOT.
        let mut ip = target;
        for _ in 0..3 {
            let stub = self.decode(ip)?;
            if stub.mnemonic() == iced_x86::Mnemonic::Jmp && stub.is_ip_rel_memory_operand() {
                return self.got_slots.get(&stub.ip_rel_memory_address()).cloned();
            }
            ip = stub.next_ip();
        }
        None
    }
}

impl std::fmt::Debug for Symbolizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Symbolizer")
    }
}

/// `exp@GLIBC_2.29` → `exp`.
fn strip_version(name: &str) -> &str {
    name.split('@').next().unwrap_or(name)
}

fn mnemonic_name(m: iced_x86::Mnemonic) -> String {
    format!("{m:?}").to_ascii_lowercase()
}

/// A DWARF path relative to the current directory when it lies below it.
fn display_path(path: &str) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| {
            Path::new(path)
                .strip_prefix(&cwd)
                .ok()
                .map(|p| p.display().to_string())
        })
        .unwrap_or_else(|| path.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_raw_events_strictly() {
        let (truncated, events) = parse_raw("0 28:1149:d 4:11b7:c 1:7f00:u 10:0:x").unwrap();
        assert!(!truncated);
        assert_eq!(
            events,
            vec![
                RawEvent {
                    flags: ExceptionSet(0x28),
                    site: RawSite::Direct(0x1149)
                },
                RawEvent {
                    flags: ExceptionSet(0x04),
                    site: RawSite::ViaCall(0x11b7)
                },
                RawEvent {
                    flags: ExceptionSet(0x01),
                    site: RawSite::Unlocated(0x7f00)
                },
                RawEvent {
                    flags: ExceptionSet(0x10),
                    site: RawSite::X87
                },
            ]
        );
        assert!(parse_raw("1").unwrap().0);
        for bad in [
            "",
            "2",
            "0 28:1149",
            "0 28:1149:q",
            "0 2:1149:d",
            "0 zz:1:d",
            "0 1:2:d:3",
        ] {
            assert!(parse_raw(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn strips_symbol_versions() {
        assert_eq!(strip_version("exp@GLIBC_2.29"), "exp");
        assert_eq!(strip_version("sqrt"), "sqrt");
    }
}
