//! Calls to native functions outside the module, through libffi, on concrete numbers.
//!
//! The symbol is looked up in the process's global scope (glibc, and any library the user
//! loaded with [`load_library`]); its signature is the call's as lowered, since a
//! function declared in C has no run-time type information.

use super::x86::{with_flags, Env};
use crate::domain::DResult;
use crate::WalkError;
use fpscout_ir::{ExternalCall, FloatTy, ScalarTy, Type};
use libffi::middle::{arg, Arg, Cif, CodePtr, Type as FfiType};
use std::collections::HashMap;
use std::ffi::CString;

/// Makes the functions of a shared library visible to external calls (`-l` on the command
/// line); the library stays loaded for the life of the process.
pub fn load_library(path: &std::path::Path) -> Result<(), String> {
    let c = CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| format!("library path {} contains a NUL byte", path.display()))?;
    // SAFETY: `c` is NUL-terminated; the handle is deliberately never closed.
    let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
    if handle.is_null() {
        // SAFETY: dlerror returns a thread-local message or null.
        let why = unsafe { libc::dlerror() };
        let why = if why.is_null() {
            "unknown error".to_string()
        } else {
            // SAFETY: non-null dlerror results are NUL-terminated strings.
            unsafe { std::ffi::CStr::from_ptr(why) }
                .to_string_lossy()
                .into_owned()
        };
        return Err(format!("cannot load {}: {why}", path.display()));
    }
    Ok(())
}

/// Resolved symbol addresses, per domain (the call interface is built per call: it is
/// cheap next to a call outside the module, and keeps the domain `Send`).
#[derive(Clone, Debug, Default)]
pub(crate) struct ForeignFunctions {
    resolved: HashMap<String, Option<usize>>,
}

fn ffi_type(ty: Type) -> Option<FfiType> {
    Some(match ty {
        Type::Void => FfiType::void(),
        Type::Scalar(ScalarTy::Float(FloatTy::F64)) => FfiType::f64(),
        Type::Scalar(ScalarTy::Float(FloatTy::F32)) => FfiType::f32(),
        Type::Scalar(ScalarTy::Int(1 | 8)) => FfiType::i8(),
        Type::Scalar(ScalarTy::Int(16)) => FfiType::i16(),
        Type::Scalar(ScalarTy::Int(32)) => FfiType::i32(),
        Type::Scalar(ScalarTy::Int(64)) => FfiType::i64(),
        _ => return None,
    })
}

/// One argument in the width its C type has.
enum Value {
    F64(f64),
    F32(f32),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
}

impl Value {
    fn of(ty: Type, bits: u64) -> Option<Value> {
        Some(match ty {
            Type::Scalar(ScalarTy::Float(FloatTy::F64)) => Value::F64(f64::from_bits(bits)),
            Type::Scalar(ScalarTy::Float(FloatTy::F32)) => Value::F32(f32::from_bits(bits as u32)),
            Type::Scalar(ScalarTy::Int(1 | 8)) => Value::I8(bits as u8 as i8),
            Type::Scalar(ScalarTy::Int(16)) => Value::I16(bits as u16 as i16),
            Type::Scalar(ScalarTy::Int(32)) => Value::I32(bits as u32 as i32),
            Type::Scalar(ScalarTy::Int(64)) => Value::I64(bits as i64),
            _ => return None,
        })
    }

    fn arg(&self) -> Arg {
        match self {
            Value::F64(v) => arg(v),
            Value::F32(v) => arg(v),
            Value::I8(v) => arg(v),
            Value::I16(v) => arg(v),
            Value::I32(v) => arg(v),
            Value::I64(v) => arg(v),
        }
    }
}

impl ForeignFunctions {
    /// The address of `call.name`, looked up once.
    fn resolve(&mut self, call: &ExternalCall) -> DResult<usize> {
        let found = *self
            .resolved
            .entry(call.name.clone())
            .or_insert_with(|| lookup(&call.name));
        found.ok_or_else(|| not_found(&call.name))
    }

    /// Calls the function on argument bits under `env`: result bits (0 for void) and the
    /// flags it raised.
    pub(crate) fn call(
        &mut self,
        call: &ExternalCall,
        args: &[u64],
        env: Env,
    ) -> DResult<(u64, u32)> {
        if call.variadic {
            return Err(WalkError::unsupported(format!(
                "call to variadic external function '{}'",
                call.name
            )));
        }
        let addr = self.resolve(call)?;
        let types: Option<Vec<FfiType>> = call.arg_tys.iter().map(|&t| ffi_type(t)).collect();
        let (Some(types), Some(ret)) = (types, ffi_type(call.ret)) else {
            return Err(WalkError::unsupported(format!(
                "call to external function '{}' whose argument or result type is not a C number",
                call.name
            )));
        };
        let cif = Cif::new(types, ret);
        let values: Vec<Value> = call
            .arg_tys
            .iter()
            .zip(args)
            .map(|(&t, &b)| Value::of(t, b))
            .collect::<Option<_>>()
            .ok_or_else(|| WalkError::unsupported("external call argument type"))?;
        let ffi_args: Vec<Arg> = values.iter().map(Value::arg).collect();
        let code = CodePtr(addr as *mut _);
        // SAFETY: the interface was built from the call's own argument and return types,
        // which is how the caller's C code declared the function; the arguments live
        // until the call returns.
        let (bits, flags) = with_flags(env, || unsafe {
            match call.ret {
                Type::Void => {
                    cif.call::<()>(code, &ffi_args);
                    0
                }
                Type::Scalar(ScalarTy::Float(FloatTy::F64)) => {
                    cif.call::<f64>(code, &ffi_args).to_bits()
                }
                Type::Scalar(ScalarTy::Float(FloatTy::F32)) => {
                    u64::from(cif.call::<f32>(code, &ffi_args).to_bits())
                }
                Type::Scalar(ScalarTy::Int(1)) => u64::from(cif.call::<u8>(code, &ffi_args) & 1),
                Type::Scalar(ScalarTy::Int(8)) => u64::from(cif.call::<u8>(code, &ffi_args)),
                Type::Scalar(ScalarTy::Int(16)) => u64::from(cif.call::<u16>(code, &ffi_args)),
                Type::Scalar(ScalarTy::Int(32)) => u64::from(cif.call::<u32>(code, &ffi_args)),
                _ => cif.call::<u64>(code, &ffi_args),
            }
        });
        Ok((bits, flags))
    }
}

fn not_found(name: &str) -> WalkError {
    WalkError::unsupported(format!(
        "call to external function '{name}': no such symbol is loaded with numeric \
         arguments (give its library with -l, or add its source)"
    ))
}

fn lookup(name: &str) -> Option<usize> {
    let c = CString::new(name).ok()?;
    // SAFETY: RTLD_DEFAULT searches the global scope; `c` is NUL-terminated.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c.as_ptr()) };
    (!p.is_null()).then_some(p as usize)
}
