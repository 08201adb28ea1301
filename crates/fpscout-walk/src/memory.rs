//! Walker memory: separate objects of typed scalar cells, so symbolic values survive
//! stores and loads, with byte-level fallback when concrete bits are reinterpreted.

use crate::domain::Domain;
use crate::{DResult, WalkError};
use fpscout_ir::{CastOp, ScalarTy};
use std::collections::BTreeMap;

/// Index of a memory object; 0 is reserved for the null pointer.
pub type ObjectId = u32;

/// A pointer: an object and a byte offset into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ptr {
    pub obj: ObjectId,
    pub offset: i64,
}

impl Ptr {
    pub const NULL: Ptr = Ptr { obj: 0, offset: 0 };
    const OFFSET_BITS: u32 = 40;

    /// The integer a `ptrtoint` yields: object in the high bits, offset in the low ones.
    pub fn to_int(self) -> u64 {
        (u64::from(self.obj) << Self::OFFSET_BITS)
            | (self.offset as u64 & ((1u64 << Self::OFFSET_BITS) - 1))
    }
    pub fn from_int(v: u64) -> Ptr {
        let raw = v & ((1u64 << Self::OFFSET_BITS) - 1);
        let offset = fpscout_ir::sign_extend(raw, Self::OFFSET_BITS);
        Ptr {
            obj: (v >> Self::OFFSET_BITS) as u32,
            offset,
        }
    }
    pub fn add(self, delta: i64) -> Ptr {
        Ptr {
            obj: self.obj,
            offset: self.offset.wrapping_add(delta),
        }
    }
}

/// What one memory cell holds.
#[derive(Clone, Debug)]
pub enum Cell<S> {
    Scalar(ScalarTy, S),
    Ptr(Ptr),
}

#[derive(Clone, Debug)]
struct Object<S> {
    name: String,
    size: u64,
    cells: BTreeMap<u64, Cell<S>>,
    live: bool,
    writable: bool,
}

/// All objects a walk can reach: arguments' buffers, globals, allocas.
#[derive(Debug)]
pub struct Memory<S> {
    objects: Vec<Object<S>>,
    /// Identifies this memory among all memories of the process (clones get their own).
    token: u64,
    /// The token of the memory this one was last reset to, while nothing has changed
    /// since (0 otherwise).
    unchanged_copy_of: u64,
}

/// A token no memory has had yet.
fn fresh_token() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl<S: Clone> Clone for Memory<S> {
    fn clone(&self) -> Self {
        Memory {
            objects: self.objects.clone(),
            token: fresh_token(),
            unchanged_copy_of: self.unchanged_copy_of,
        }
    }
}

impl<S: Clone> Default for Memory<S> {
    fn default() -> Self {
        Memory::new()
    }
}

fn cell_size<S>(c: &Cell<S>) -> u64 {
    match c {
        Cell::Scalar(t, _) => t.store_size(),
        Cell::Ptr(_) => 8,
    }
}

impl<S: Clone> Memory<S> {
    pub fn new() -> Memory<S> {
        let null = Object {
            name: "null".into(),
            size: 0,
            cells: BTreeMap::new(),
            live: false,
            writable: false,
        };
        Memory {
            objects: vec![null],
            token: fresh_token(),
            unchanged_copy_of: 0,
        }
    }

    /// Whether this memory has not changed since it was last reset to `snapshot`, so that
    /// it holds what `snapshot` held then (the caller knows whether `snapshot` changed).
    pub(crate) fn is_unchanged_copy_of(&self, snapshot: &Memory<S>) -> bool {
        self.unchanged_copy_of == snapshot.token
    }

    /// Creates an object of `size` bytes and returns a pointer to its start.
    pub fn alloc(&mut self, name: impl Into<String>, size: u64, writable: bool) -> Ptr {
        self.unchanged_copy_of = 0;
        let obj = self.objects.len() as ObjectId;
        self.objects.push(Object {
            name: name.into(),
            size,
            cells: BTreeMap::new(),
            live: true,
            writable,
        });
        Ptr { obj, offset: 0 }
    }

    /// [`Memory::alloc`] with a borrowed name.
    pub(crate) fn alloc_named(&mut self, name: &str, size: u64, writable: bool) -> Ptr {
        self.alloc(name, size, writable)
    }

    /// Returns to a snapshot this memory started from: objects created since are dropped,
    /// writable objects get their cells back (read-only ones cannot have changed).
    pub fn reset_to(&mut self, snapshot: &Memory<S>) {
        self.objects.truncate(snapshot.objects.len());
        for (o, p) in self.objects.iter_mut().zip(&snapshot.objects) {
            if o.writable || o.live != p.live {
                o.cells.clone_from(&p.cells);
                o.live = p.live;
            }
        }
        if self.objects.len() < snapshot.objects.len() {
            let have = self.objects.len();
            self.objects.extend(snapshot.objects[have..].iter().cloned());
        }
        self.unchanged_copy_of = snapshot.token;
    }

    /// Ends an object's lifetime (allocas at function return).
    pub fn kill(&mut self, obj: ObjectId) {
        self.unchanged_copy_of = 0;
        if let Some(o) = self.objects.get_mut(obj as usize) {
            o.live = false;
            o.cells.clear();
        }
    }

    pub fn object_size(&self, obj: ObjectId) -> Option<u64> {
        self.objects.get(obj as usize).map(|o| o.size)
    }

    fn checked(&self, p: Ptr, size: u64, what: &str) -> DResult<(usize, u64)> {
        let o = self
            .objects
            .get(p.obj as usize)
            .filter(|o| o.live)
            .ok_or_else(|| WalkError::trap(format!("{what} through an invalid or null pointer")))?;
        if p.offset < 0 || (p.offset as u64).saturating_add(size) > o.size {
            return Err(WalkError::trap(format!(
                "{what} of {size} bytes at offset {} outside '{}' ({} bytes)",
                p.offset, o.name, o.size
            )));
        }
        Ok((p.obj as usize, p.offset as u64))
    }

    /// Writes one scalar cell, replacing whatever overlapped it.
    pub fn store<D: Domain<Scalar = S>>(&mut self, d: &D, p: Ptr, cell: Cell<S>) -> DResult<()> {
        self.unchanged_copy_of = 0;
        let size = cell_size(&cell);
        let (obj, off) = self.checked(p, size, "store")?;
        if !self.objects[obj].writable {
            return Err(WalkError::trap(format!(
                "store into read-only '{}'",
                self.objects[obj].name
            )));
        }
        self.clear_range(d, obj, off, size);
        self.objects[obj].cells.insert(off, cell);
        Ok(())
    }

    /// Writes an initial value, even into read-only objects (global initialisers).
    pub fn store_init<D: Domain<Scalar = S>>(
        &mut self,
        d: &mut D,
        p: Ptr,
        cell: Cell<S>,
    ) -> DResult<()> {
        self.unchanged_copy_of = 0;
        let size = cell_size(&cell);
        let (obj, off) = self.checked(p, size, "initialiser")?;
        self.clear_range(d, obj, off, size);
        self.objects[obj].cells.insert(off, cell);
        Ok(())
    }

    /// Removes cells overlapping `[off, off+size)`, keeping the bytes of partially
    /// overlapped concrete cells as byte cells.
    fn clear_range<D: Domain<Scalar = S>>(&mut self, d: &D, obj: usize, off: u64, size: u64) {
        let end = off + size;
        let cells = &mut self.objects[obj].cells;
        let start_scan = off.saturating_sub(7);
        let overlapping: Vec<u64> = cells
            .range(start_scan..end)
            .filter(|(&s, c)| s + cell_size(c) > off)
            .map(|(&s, _)| s)
            .collect();
        for s in overlapping {
            let Some(old) = cells.remove(&s) else {
                continue;
            };
            let old_size = cell_size(&old);
            if s >= off && s + old_size <= end {
                continue;
            }
            let bits = match &old {
                Cell::Scalar(_, v) => d.concrete_bits(v),
                Cell::Ptr(p) => Some(p.to_int()),
            };
            if let Some(bits) = bits {
                for i in 0..old_size {
                    let b = s + i;
                    if b < off || b >= end {
                        let byte = (bits >> (8 * i)) & 0xff;
                        cells.insert(b, Cell::Scalar(ScalarTy::Int(8), d_const(d, byte)));
                    }
                }
            }
        }
    }

    /// Reads a scalar of type `ty`.
    pub fn load<D: Domain<Scalar = S>>(&self, d: &mut D, p: Ptr, ty: ScalarTy) -> DResult<Cell<S>> {
        let size = ty.store_size();
        let (obj, off) = self.checked(p, size, "load")?;
        let cells = &self.objects[obj].cells;
        if let Some(c) = cells.get(&off) {
            if cell_size(c) == size {
                return reinterpret(d, c, ty);
            }
        }
        // Assemble from bytes of concrete cells (type punning, memset, partial copies).
        let mut bits = 0u64;
        for i in 0..size {
            let b = off + i;
            let (start, c) = cells
                .range(b.saturating_sub(7)..=b)
                .rev()
                .find(|(&s, c)| s + cell_size(c) > b)
                .ok_or_else(|| {
                    WalkError::unsupported(format!(
                        "read of uninitialized memory in '{}' at offset {b}",
                        self.objects[obj].name
                    ))
                })?;
            let cbits = match c {
                Cell::Scalar(_, v) => d.concrete_bits(v),
                Cell::Ptr(p) => Some(p.to_int()),
            }
            .ok_or_else(|| WalkError::unsupported("reinterpreting bytes of a symbolic value"))?;
            let byte = (cbits >> (8 * (b - start))) & 0xff;
            bits |= byte << (8 * i);
        }
        Ok(match ty {
            ScalarTy::Ptr => Cell::Ptr(Ptr::from_int(bits)),
            t => Cell::Scalar(t, d.constant(t, bits)),
        })
    }

    /// Copies `len` bytes cell by cell (`llvm.memcpy`/`memmove`).
    pub fn copy<D: Domain<Scalar = S>>(
        &mut self,
        d: &D,
        dst: Ptr,
        src: Ptr,
        len: u64,
    ) -> DResult<()> {
        self.unchanged_copy_of = 0;
        if len == 0 {
            return Ok(());
        }
        let (sobj, soff) = self.checked(src, len, "memcpy source")?;
        let (dobj, doff) = self.checked(dst, len, "memcpy destination")?;
        let end = soff + len;
        let mut moved: Vec<(u64, Cell<S>)> = Vec::new();
        for (&s, c) in self.objects[sobj].cells.range(soff.saturating_sub(7)..end) {
            let size = cell_size(c);
            if s + size <= soff {
                continue;
            }
            if s >= soff && s + size <= end {
                moved.push((s - soff, c.clone()));
                continue;
            }
            // A cell straddling an end of the range (`memcpy(&hi, (char *)&x + 4, 4)`, the
            // memcpy form of GET_HIGH_WORD) used to be dropped, so the copy read as
            // uninitialized: copy the bytes inside the range when the bits are known.
            let bits = match c {
                Cell::Scalar(_, v) => d.concrete_bits(v),
                Cell::Ptr(p) => Some(p.to_int()),
            };
            if let Some(bits) = bits {
                for b in s.max(soff)..(s + size).min(end) {
                    let byte = (bits >> (8 * (b - s))) & 0xff;
                    moved.push((b - soff, Cell::Scalar(ScalarTy::Int(8), d_const(d, byte))));
                }
            }
        }
        if !self.objects[dobj].writable {
            return Err(WalkError::trap("memcpy into read-only memory"));
        }
        self.clear_range(d, dobj, doff, len);
        for (rel, c) in moved {
            self.objects[dobj].cells.insert(doff + rel, c);
        }
        Ok(())
    }

    /// Fills `len` bytes with a concrete byte (`llvm.memset`).
    pub fn fill<D: Domain<Scalar = S>>(
        &mut self,
        d: &D,
        dst: Ptr,
        byte: u8,
        len: u64,
    ) -> DResult<()> {
        self.unchanged_copy_of = 0;
        if len == 0 {
            return Ok(());
        }
        let (dobj, doff) = self.checked(dst, len, "memset")?;
        self.clear_range(d, dobj, doff, len);
        for i in 0..len {
            let c = Cell::Scalar(ScalarTy::Int(8), d_const(d, u64::from(byte)));
            self.objects[dobj].cells.insert(doff + i, c);
        }
        Ok(())
    }

    /// Reads `count` consecutive scalars of `ty` from an object (array arguments after a call).
    pub fn read_array<D: Domain<Scalar = S>>(
        &self,
        d: &mut D,
        p: Ptr,
        ty: ScalarTy,
        count: usize,
    ) -> DResult<Vec<Cell<S>>> {
        (0..count)
            .map(|i| self.load(d, p.add(i as i64 * ty.store_size() as i64), ty))
            .collect()
    }
}

fn d_const<S, D: Domain<Scalar = S>>(d: &D, bits: u64) -> S {
    d.constant(ScalarTy::Int(8), bits)
}

fn reinterpret<S: Clone, D: Domain<Scalar = S>>(
    d: &mut D,
    c: &Cell<S>,
    ty: ScalarTy,
) -> DResult<Cell<S>> {
    match (c, ty) {
        (Cell::Ptr(p), ScalarTy::Ptr) => Ok(Cell::Ptr(*p)),
        (Cell::Ptr(p), ScalarTy::Int(w)) => {
            Ok(Cell::Scalar(ty, d.constant(ScalarTy::Int(w), p.to_int())))
        }
        (Cell::Scalar(ScalarTy::Int(_), v), ScalarTy::Ptr) => {
            let bits = d.concretize(v, ScalarTy::Int(64))?;
            Ok(Cell::Ptr(Ptr::from_int(bits)))
        }
        (Cell::Scalar(t, v), _) if *t == ty => Ok(Cell::Scalar(ty, v.clone())),
        (Cell::Scalar(t, v), _) => Ok(Cell::Scalar(ty, d.icast(CastOp::BitCast, *t, ty, v)?)),
        (Cell::Ptr(_), ScalarTy::Float(_)) => {
            Err(WalkError::unsupported("loading a pointer as a float"))
        }
    }
}
